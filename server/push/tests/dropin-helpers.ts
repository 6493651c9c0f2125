import type { DesktopMessage } from '../desktop';
import { startPushServer, type PushTestServer } from './helpers';

/** What one drop-in request handed to push.send: the app key and the /send input it was translated into. */
export interface SentInput {
  appKey: string;
  input: Record<string, unknown>;
}

export interface DropinServer {
  t: PushTestServer;
  /** A desktop app: every push arrives in `arrived`. */
  appKey: string;
  /** Every push.send call, in order. */
  sent: SentInput[];
  /** Every desktop message, in order. */
  arrived: DesktopMessage[];
  lastSent(): SentInput;
  lastArrived(): DesktopMessage;
}

/**
 * A real server with a desktop app. The routes call `push.send` on the service object, so wrapping
 * that one method records the /send input each drop-in form was translated into (priority, group,
 * delay…), and the desktop feed's in-process listener records what was delivered.
 */
export async function startDropinServer(): Promise<DropinServer> {
  const t = await startPushServer();
  const { appKey } = await t.setup({ type: 'desktop' });
  const push = t.server.app.services.push;
  const sent: SentInput[] = [];
  const arrived: DesktopMessage[] = [];
  const send = push.send.bind(push);
  push.send = (key, input, caller) => {
    sent.push({ appKey: key, input: { ...input } });
    return send(key, input, caller);
  };
  push.onDesktopMessage((message) => arrived.push(message));
  return {
    t,
    appKey,
    sent,
    arrived,
    lastSent: () => {
      const last = sent.at(-1);
      if (!last) throw new Error('nothing was sent');
      return last;
    },
    lastArrived: () => {
      const last = arrived.at(-1);
      if (!last) throw new Error('nothing arrived');
      return last;
    },
  };
}
