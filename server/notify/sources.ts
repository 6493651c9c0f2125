import type { Subscription } from 'rxjs';
import { optionalService, type AppContext } from '../app-context';
import { describeError } from '../lib/logger';
import { EPISODE_PREFIX } from './config';
import { backupMessage, goalMessage, messageLanguage, shownTime, syncMessage, type MessageLanguage } from './messages';
import type { Notifier, NotifyEvent } from './types';

/** What the event sources need of the notifier. */
export interface SourceNotifier extends Pick<Notifier, 'emit'> {
  /** The zone times in messages are shown in. */
  readonly timeZone: string;
  /** Accounts that turned `event` on. */
  accountsWanting(event: NotifyEvent): Promise<string[]>;
}

const MINUTE = 60 * 1000;
/** A sync that cannot reach its server is a problem worth a message after this long (retries usually fix short outages). */
export const SYNC_PAUSED_ALERT_MS = 30 * MINUTE;
/** An episode ends once sync has been healthy this long (a restart that looks healthy for a moment does not end it). */
export const SYNC_RECOVERED_MS = 15 * MINUTE;
/** A goal completed longer ago than this is not announced (e.g. an old goal arriving by a first sync). */
const GOAL_FRESH_MS = 7 * 24 * 60 * MINUTE;

/** One account's current sync problem, in the local store. */
interface SyncEpisode {
  start: number;
  /** When sync was first seen healthy again (0: not since the last problem). */
  healthySince: number;
  notified: boolean;
}

/**
 * The events the reminders find themselves: goals completed (here or arriving by sync), sync
 * problems (polled by the notifier's tick), and failed automatic backups (the backup service calls
 * backupFailed()).
 */
export class EventSources {
  private goals: Subscription | null = null;

  constructor(
    private readonly app: AppContext,
    private readonly notifier: SourceNotifier,
  ) {}

  start(): void {
    const savings = optionalService(this.app, 'savings');
    if (!savings) return;
    this.goals = savings.watchGoals((goal) => {
      if (goal.status !== 'completed' || goal.completedAt <= 0 || this.app.clock.now() - goal.completedAt > GOAL_FRESH_MS) return;
      this.language(goal.userId)
        .then((language) => this.notifier.emit(goal.userId, 'goalReached', goal.id, goalMessage(goal, language)))
        .catch((error: unknown) => this.app.log.warn('notify: goal reminder failed', describeError(error)));
    });
  }

  /** The language the account reads its reminders in. */
  private async language(userId: string): Promise<MessageLanguage> {
    return messageLanguage(await optionalService(this.app, 'users')?.language(userId));
  }

  stop(): void {
    this.goals?.unsubscribe();
    this.goals = null;
  }

  // ---- sync ----

  private episodeKey(userId: string): string {
    return EPISODE_PREFIX + userId;
  }

  async episodeKeys(userId: string): Promise<string[]> {
    return (await this.app.db.local.get(this.episodeKey(userId))) ? [this.episodeKey(userId)] : [];
  }

  async forgetSync(userId: string): Promise<void> {
    if (await this.app.db.local.get(this.episodeKey(userId))) await this.app.db.local.del(this.episodeKey(userId));
  }

  /**
   * One look at the account's sync: a collection in 'error', or 'paused' (its server unreachable),
   * starts a problem episode; the episode is announced once — at once for an error, after
   * SYNC_PAUSED_ALERT_MS for an unreachable server — and ends when sync has been healthy for
   * SYNC_RECOVERED_MS or is stopped. Key: the episode's start.
   */
  async checkSync(userId: string, now: number): Promise<void> {
    const sync = optionalService(this.app, 'sync');
    if (!sync) return;
    const local = this.app.db.local;
    const key = this.episodeKey(userId);
    const status = await sync.status(userId);
    const episode = await local.get<SyncEpisode>(key);
    if (!status.configured || !status.enabled) {
      if (episode) await local.del(key);
      return;
    }
    const problems = status.collections.filter((c) => c.state === 'error' || c.state === 'paused');
    if (problems.length === 0) {
      if (!episode) return;
      if (episode.healthySince === 0) await local.put(key, { ...episode, healthySince: now });
      else if (now - episode.healthySince >= SYNC_RECOVERED_MS) await local.del(key);
      return;
    }
    const current: SyncEpisode = episode ? { ...episode, healthySince: 0 } : { start: now, healthySince: 0, notified: false };
    const error = problems.some((c) => c.state === 'error');
    if (!current.notified && (error || now - current.start >= SYNC_PAUSED_ALERT_MS)) {
      const message = syncMessage({ collections: problems.map((c) => c.collection), error, since: shownTime(current.start, this.notifier.timeZone) }, await this.language(userId));
      const outcome = await this.notifier.emit(userId, 'syncProblem', `episode:${current.start}`, message);
      // 'failed' (the chosen app was deleted) is tried again at the next look: another app may be chosen in time.
      current.notified = outcome === 'sent' || outcome === 'duplicate';
    }
    if (!episode || episode.healthySince !== 0 || episode.notified !== current.notified) await local.put(key, current);
  }

  // ---- backup ----

  /** The automatic daily snapshot failed: the owner and admins who want backup problems hear of it once (key: the snapshot's id). */
  async backupFailed(failure: { id: string; at: number }): Promise<void> {
    const at = shownTime(failure.at, this.notifier.timeZone);
    const users = optionalService(this.app, 'users');
    for (const userId of await this.notifier.accountsWanting('backupProblem')) {
      // Snapshots are the server's, managed by its owner and admins: members are not told.
      const user = users ? await users.findById(userId) : null;
      if (users && (!user || user.disabled || user.role === 'member')) continue;
      await this.notifier.emit(userId, 'backupProblem', failure.id, backupMessage({ at }, await this.language(userId)));
    }
  }
}
