/**
 * "Your data changed" notices for the signed-in windows of one person, sent on the feed stream
 * they already hold open (GET /events/push, `event: change`): a window that shows that data reads
 * it again at once instead of polling. Other domains announce through the push service
 * (`app.services.push.announce(userId, topic)`); nothing but the topic travels.
 */
export const CHANGE_TOPICS = ['inbox'] as const;
export type ChangeTopic = (typeof CHANGE_TOPICS)[number];

type Listener = (topic: ChangeTopic) => void;

export class ChangeNotices {
  private readonly perUser = new Map<string, Set<Listener>>();

  /** Tells every open window of the user; returns how many got it. */
  announce(userId: string, topic: ChangeTopic): number {
    let told = 0;
    for (const listener of this.perUser.get(userId) ?? []) {
      told++;
      try {
        listener(topic);
      } catch {
        // one broken window must not stop the others
      }
    }
    return told;
  }

  /** One window's notices; returns the unsubscribe. */
  subscribe(userId: string, listener: Listener): () => void {
    let set = this.perUser.get(userId);
    if (!set) {
      set = new Set();
      this.perUser.set(userId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.perUser.delete(userId);
    };
  }
}
