/**
 * The desktop channel: pushes become events inside this process. The UI and the headless mode
 * follow them over Server-Sent Events (GET /events/push); the Electron shell subscribes with
 * `app.services.push.onDesktopMessage(listener)` to show native notifications.
 */
export interface DesktopMessage {
  /** The push id (also the SSE event id). */
  id: string;
  userId: string;
  appId: string;
  appName: string;
  title: string;
  desp: string;
  /** Path of the message page (/m/{token}); absolute when a public base URL is set. */
  url: string;
  createdAt: number;
}

type Listener = (message: DesktopMessage) => void;

/** Messages kept per user for SSE reconnects (Last-Event-ID). */
const REPLAY = 50;

export class DesktopHub {
  private readonly everyone = new Set<Listener>();
  private readonly perUser = new Map<string, Set<Listener>>();
  private readonly recent = new Map<string, DesktopMessage[]>();
  /** How to end each open feed stream (endStreams). */
  private readonly streamEnds = new Set<() => void>();

  /** Delivers to every subscriber of the user; returns how many live viewers got it. */
  publish(message: DesktopMessage): number {
    const list = this.recent.get(message.userId) ?? [];
    list.push(message);
    if (list.length > REPLAY) list.splice(0, list.length - REPLAY);
    this.recent.set(message.userId, list);
    let viewers = 0;
    for (const listener of this.perUser.get(message.userId) ?? []) {
      viewers++;
      try {
        listener(message);
      } catch {
        // one broken viewer must not stop the others
      }
    }
    for (const listener of this.everyone) {
      try {
        listener(message);
      } catch {
        // the shell's listener is its own business
      }
    }
    return viewers;
  }

  /** Every desktop message of every user (the Electron shell's native notifications). */
  onAny(listener: Listener): () => void {
    this.everyone.add(listener);
    return () => this.everyone.delete(listener);
  }

  /** A viewer's feed; `end` closes its stream when endStreams is called. Returns the unsubscribe. */
  subscribe(userId: string, listener: Listener, end?: () => void): () => void {
    let set = this.perUser.get(userId);
    if (!set) {
      set = new Set();
      this.perUser.set(userId, set);
    }
    set.add(listener);
    if (end) this.streamEnds.add(end);
    return () => {
      set.delete(listener);
      if (end) this.streamEnds.delete(end);
      if (set.size === 0) this.perUser.delete(userId);
    };
  }

  /** Ends every open feed stream (the push domain is stopping or restarting); its viewers reconnect. */
  endStreams(): void {
    for (const end of [...this.streamEnds]) end();
  }

  /** Messages after `lastId` (for a reconnecting EventSource); none when the id is unknown. */
  since(userId: string, lastId: string): DesktopMessage[] {
    const list = this.recent.get(userId) ?? [];
    const index = list.findIndex((m) => m.id === lastId);
    return index < 0 ? [] : list.slice(index + 1);
  }

  viewerCount(userId: string): number {
    return this.perUser.get(userId)?.size ?? 0;
  }
}
