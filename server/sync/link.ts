/**
 * One connection state per user's CouchDB, shared by all the user's collection replications
 * (server/sync/service.ts creates it, server/sync/replication-fetch.ts asks it before every request):
 *
 * - Credentials. CouchDB locks a user out for minutes after a few failed logins from one address
 *   (`[chttpd_auth_lockout]`), and every collection replicates on its own. So the first 401 stops
 *   every collection at once, with one message, and no request leaves until the user enters the
 *   credentials again (sync.configure) or retries (sync.start / sync.resync: a new link). While the
 *   credentials are not known to work (at start, after the server was away), one request goes
 *   first and the others wait for its answer, so a changed password costs one refused request. And
 *   never more than MAX_UNANSWERED requests wait for their answer's headers at a time (CouchDB
 *   checks the password before it answers anything, a long-poll too), so even a password changed
 *   while all collections push costs at most that many refusals: below CouchDB's lockout
 *   threshold (5 by default).
 * - Reachability. While the server cannot be reached, one request per retry period tries it; the
 *   others wait. The moment any request is answered, the waiting ones of every collection go at
 *   once, so no collection keeps showing "paused" for another retry period.
 */
/**
 * A probe unanswered for this long (a long-poll whose server holds the answer, a slow server) lets
 * one more request try: a refusal of the credentials comes back at once, so this adds no refusals.
 */
const PROBE_GRACE_MS = 1500;

/** Requests of one user that may wait for their answer at the same time (their password unchecked). */
export const MAX_UNANSWERED = 3;

export type LinkFailure = { kind: 'auth'; message: string };

/** A request allowed to go; hand it back with answered / unreachableNow / refused. */
export interface LinkTicket {
  /** It goes alone while the state is not verified. */
  probe: boolean;
  /** It counts against MAX_UNANSWERED (a long-poll does not: see acquire). */
  counted: boolean;
}

export class LinkStoppedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LinkStoppedError';
  }
}

export interface SyncLinkOptions {
  /** How long to wait between two tries while the server cannot be reached. */
  retryMs: number;
  /** Called once, on the first refused credentials (the service stops every collection). */
  onAuthFailure(message: string): void;
  /**
   * Called when the server answers for the first time (`afterOutage` false) or again after it could
   * not be reached (true).
   */
  onReachable?(afterOutage: boolean): void;
}

export class SyncLink {
  /** True once a request was answered (not refused) and until one fails to reach the server. */
  private verified = false;
  /** Requests that go alone while the state is not verified (a second one only when the first hangs). */
  private probesInFlight = 0;
  private lastProbeAt = 0;
  private failure: LinkFailure | null = null;
  private closed = false;
  /** Time of the last failure to reach the server while not verified (0: none). */
  private unreachableSince = 0;
  /** Requests sent whose answer (its headers) has not come yet. */
  private unanswered = 0;
  private wakers = new Set<() => void>();

  constructor(private readonly options: SyncLinkOptions) {}

  /** The credentials were refused: the message every collection shows. */
  get authFailure(): string | null {
    return this.failure?.message ?? null;
  }

  /** A request was answered since the start or the last failure to reach the server. */
  get isVerified(): boolean {
    return this.verified;
  }

  /** The server could not be reached at the last try and has not answered since. */
  get unreachable(): boolean {
    return this.unreachableSince > 0 && !this.verified;
  }

  /**
   * Waits until a request may go; its outcome must be reported with answered / unreachableNow /
   * refused. Throws when the link is stopped (refused credentials, or closed by the service).
   *
   * A long-poll (`longpoll`) goes only once the state is verified (the caller checks the server with
   * a short request first) and does not count against MAX_UNANSWERED: its answer's headers may be
   * held back (by a proxy) until the first change or heartbeat, while its password was checked
   * like any other — a refusal comes back at once.
   */
  async acquire(longpoll = false): Promise<LinkTicket> {
    for (;;) {
      if (this.failure) throw new LinkStoppedError(this.failure.message);
      if (this.closed) throw new LinkStoppedError('The sync was stopped.');
      if (longpoll) {
        if (this.verified) return { probe: false, counted: false };
        await this.sleep(PROBE_GRACE_MS);
        continue;
      }
      if (this.unanswered >= MAX_UNANSWERED) {
        await this.sleep(PROBE_GRACE_MS);
        continue;
      }
      if (this.verified) {
        this.unanswered += 1;
        return { probe: false, counted: true };
      }
      const now = Date.now();
      const due = this.probesInFlight > 0 ? this.lastProbeAt + PROBE_GRACE_MS - now : this.unreachableSince === 0 ? 0 : this.lastProbeAt + this.options.retryMs - now;
      if (due <= 0) {
        this.probesInFlight += 1;
        this.unanswered += 1;
        this.lastProbeAt = now;
        return { probe: true, counted: true };
      }
      await this.sleep(due);
    }
  }

  /** The request got an answer that is not a refusal of the credentials. */
  answered(ticket: LinkTicket): void {
    this.settle(ticket);
    const wasUnverified = !this.verified;
    const afterOutage = this.unreachableSince > 0;
    this.verified = true;
    this.unreachableSince = 0;
    this.wake();
    if (wasUnverified || afterOutage) this.options.onReachable?.(afterOutage);
  }

  /** The request could not reach the server (refused connection, timeout, 5xx). */
  unreachableNow(ticket: LinkTicket): void {
    this.settle(ticket);
    this.lost();
  }

  /** The connection broke after the answer had begun (reading its body): the server is away. */
  lost(): void {
    if (this.verified || this.unreachableSince === 0) this.lastProbeAt = Date.now();
    this.verified = false;
    if (this.unreachableSince === 0) this.unreachableSince = Date.now();
    this.wake();
  }

  /** CouchDB refused the credentials: everything stops, once. */
  refused(ticket: LinkTicket, message: string): void {
    this.settle(ticket);
    if (this.failure) return;
    this.failure = { kind: 'auth', message };
    this.wake();
    this.options.onAuthFailure(message);
  }

  /** The service stops this user's sync: waiting requests end, no new one goes. */
  close(): void {
    this.closed = true;
    this.wake();
  }

  private settle(ticket: LinkTicket): void {
    if (ticket.counted) this.unanswered = Math.max(0, this.unanswered - 1);
    if (ticket.probe) this.probesInFlight = Math.max(0, this.probesInFlight - 1);
    this.wake();
  }

  private wake(): void {
    const wakers = [...this.wakers];
    this.wakers.clear();
    for (const wake of wakers) wake();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      // `timer` is set before anything can call `wake` (the wakers run later, never from here).
      const wake = () => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      this.wakers.add(wake);
      const timer = setTimeout(wake, Math.max(1, ms));
    });
  }
}
