import type { DeliveryResult, PushMode, ResultClass } from './schema';

/**
 * The delivery loop shared by every channel type: recipients in parallel up to a concurrency
 * bound (or one by one until the first success, pushMode 'first'), bounded retries with backoff
 * for transient failures inside the request's deadline, and a stop for everyone still queued
 * once a systemic failure shows the channel itself is broken.
 */

export interface Failure {
  cls: Exclude<ResultClass, 'ok'>;
  message: string;
  errcode?: number;
  /** transient only: false when an immediate retry would not help (throttling). */
  retryable?: boolean;
}

export type Outcome = { ok: true; msgId?: string } | ({ ok: false } & Failure);

export interface DeliveryTarget {
  /** What the result shows as `recipient` (masked where the address is a credential). */
  label: string;
  name?: string;
}

export interface DeliveryPlan<T extends DeliveryTarget> {
  targets: T[];
  mode: PushMode;
  concurrency: number;
  /** performance.now() value after which nothing new starts. */
  deadline: number;
  callTimeoutMs: number;
  /** Runs once before any send (e.g. fetching the WeChat token); a Failure fails everyone. */
  prepare?(timeoutMs: number): Promise<Failure | null>;
  send(target: T, timeoutMs: number): Promise<Outcome>;
  /**
   * Sends to many targets in one call (channels whose API takes a list of recipients, e.g. WeCom
   * applications): one outcome per target, in order. Used for mode 'all', `batchMax` at a time;
   * transient failures are retried for the targets they hit.
   */
  sendBatch?(targets: T[], timeoutMs: number): Promise<Outcome[]>;
  batchMax?: number;
}

export const MAX_ATTEMPTS = 3;
const BACKOFF_BASE_MS = 150;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function backoffMs(attempt: number): number {
  const base = BACKOFF_BASE_MS * 2 ** (attempt - 1);
  return base + Math.floor(Math.random() * base * 0.5);
}

function remaining(deadline: number): number {
  return deadline - performance.now();
}

/** A call is started only with at least this much of the deadline left: a few ms cannot get an answer. */
export const MIN_CALL_BUDGET_MS = 50;

const deadlineFailure = (what: string): Failure => ({
  cls: 'transient',
  message: `${what}: the request reached its deadline (setting push.requestDeadlineMs) before this delivery could start. Try again later.`,
});

/** Runs `task` with bounded retries of retryable transient failures inside the deadline. */
async function withRetries(deadline: number, callTimeoutMs: number, task: (timeoutMs: number) => Promise<Outcome>): Promise<{ outcome: Outcome; attempts: number }> {
  let attempts = 0;
  for (;;) {
    const left = remaining(deadline);
    if (left < Math.min(MIN_CALL_BUDGET_MS, callTimeoutMs)) return { outcome: { ok: false, ...deadlineFailure('Not sent') }, attempts };
    attempts++;
    const outcome = await task(Math.max(1, Math.min(callTimeoutMs, Math.floor(left))));
    if (outcome.ok || outcome.cls !== 'transient' || outcome.retryable === false || attempts >= MAX_ATTEMPTS) return { outcome, attempts };
    const pause = backoffMs(attempts);
    // Retry only when the pause leaves the next call a fair chance to finish before the deadline.
    if (remaining(deadline) < pause + Math.min(callTimeoutMs, 1000)) return { outcome, attempts };
    await sleep(pause);
  }
}

function toResult(target: DeliveryTarget, outcome: Outcome, attempts: number): DeliveryResult {
  const base = { recipient: target.label, ...(target.name ? { name: target.name } : {}) };
  if (outcome.ok) return { ...base, ok: true, class: 'ok', ...(outcome.msgId ? { msgId: outcome.msgId } : {}), attempts };
  return {
    ...base,
    ok: false,
    class: outcome.cls,
    ...(outcome.errcode !== undefined ? { errcode: outcome.errcode } : {}),
    errmsg: outcome.message,
    attempts,
  };
}

export async function deliver<T extends DeliveryTarget>(plan: DeliveryPlan<T>): Promise<DeliveryResult[]> {
  const { targets, deadline, callTimeoutMs } = plan;
  if (targets.length === 0) return [];

  if (plan.prepare) {
    const prepared = await withRetries(deadline, callTimeoutMs, async (timeoutMs) => {
      const failure = await plan.prepare?.(timeoutMs);
      return failure ? { ok: false, ...failure } : { ok: true };
    });
    if (!prepared.outcome.ok) {
      const failure = prepared.outcome;
      const list = plan.mode === 'first' ? targets.slice(0, 1) : targets;
      return list.map((target) => toResult(target, failure, 0));
    }
  }

  if (plan.sendBatch && plan.mode === 'all') return deliverInBatches(plan, plan.sendBatch.bind(plan));

  let stopped: Failure | null = null;

  const runOne = async (target: T): Promise<DeliveryResult> => {
    // Read once: another worker may stop the rest while this one waits for its recipient.
    const stoppedBefore = stopped;
    if (stoppedBefore) return toResult(target, { ok: false, ...stoppedBefore, message: `Not sent: ${stoppedBefore.message}` }, 0);
    const { outcome, attempts } = await withRetries(deadline, callTimeoutMs, (timeoutMs) => plan.send(target, timeoutMs));
    if (!outcome.ok && outcome.cls === 'systemic' && !stopped) stopped = outcome;
    return toResult(target, outcome, attempts);
  };

  if (plan.mode === 'first') {
    // Failover: one recipient at a time, in order, until one gets the message.
    const tried: DeliveryResult[] = [];
    for (const target of targets) {
      const result = await runOne(target);
      tried.push(result);
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- runOne sets `stopped` (TypeScript keeps the `= null` narrowing across the await, microsoft/TypeScript#9998)
      if (result.ok || stopped || remaining(deadline) < Math.min(MIN_CALL_BUDGET_MS, callTimeoutMs)) break;
    }
    return tried;
  }

  const results = new Array<DeliveryResult>(targets.length);
  // One queue for every worker: each takes the next target as it becomes free.
  const queue = targets.entries();
  const worker = async () => {
    for (const [index, target] of queue) results[index] = await runOne(target);
  };
  await Promise.all(Array.from({ length: Math.min(plan.concurrency, targets.length) }, worker));
  return results;
}

/** Each target of a batch with the outcome the channel answered for it, in order; throws when it answered another count. */
function pairOutcomes<P>(pending: readonly P[], outcomes: readonly Outcome[]): Array<[P, Outcome]> {
  const miscount = () => new Error(`push: a batch of ${pending.length} answered ${outcomes.length} outcomes`);
  if (outcomes.length !== pending.length) throw miscount();
  return pending.map((entry, i) => {
    const outcome = outcomes.at(i);
    if (outcome === undefined) throw miscount();
    return [entry, outcome];
  });
}

/**
 * Mode 'all' through a channel's batch call: the targets in batches of `batchMax`, one after the
 * other; in a batch, the targets whose outcome is a retryable transient failure are sent again
 * (with the same backoff and deadline as single sends), the others keep their outcome. A systemic
 * failure stops the batches still queued, as it stops single sends.
 */
async function deliverInBatches<T extends DeliveryTarget>(plan: DeliveryPlan<T>, sendBatch: (targets: T[], timeoutMs: number) => Promise<Outcome[]>): Promise<DeliveryResult[]> {
  const { targets, deadline, callTimeoutMs } = plan;
  const size = Math.max(1, plan.batchMax ?? targets.length);
  const entries = targets.map((target, index) => ({ target, index }));
  const results: Array<DeliveryResult | undefined> = Array.from({ length: targets.length }, () => undefined);
  // A holder, not a variable: TypeScript would keep a `= null` narrowing across the awaits (microsoft/TypeScript#9998).
  const stop: { failure: Failure | null } = { failure: null };
  for (let start = 0; start < entries.length; start += size) {
    let pending = entries.slice(start, start + size);
    const stopped = stop.failure;
    if (stopped) {
      for (const { target, index } of pending) results[index] = toResult(target, { ok: false, ...stopped, message: `Not sent: ${stopped.message}` }, 0);
      continue;
    }
    for (let attempt = 1; pending.length > 0; attempt++) {
      const left = remaining(deadline);
      if (left < Math.min(MIN_CALL_BUDGET_MS, callTimeoutMs)) {
        // Not sent now: a target retried before keeps the failure of its last attempt, the others say why below.
        break;
      }
      const outcomes = await sendBatch(
        pending.map((entry) => entry.target),
        Math.max(1, Math.min(callTimeoutMs, Math.floor(left))),
      );
      const again: typeof pending = [];
      for (const [entry, outcome] of pairOutcomes(pending, outcomes)) {
        results[entry.index] = toResult(entry.target, outcome, attempt);
        if (!outcome.ok && outcome.cls === 'systemic') stop.failure ??= outcome;
        if (!outcome.ok && outcome.cls === 'transient' && outcome.retryable !== false && attempt < MAX_ATTEMPTS) again.push(entry);
      }
      pending = again;
      if (pending.length === 0) break;
      const pause = backoffMs(attempt);
      if (remaining(deadline) < pause + Math.min(callTimeoutMs, 1000)) break;
      await sleep(pause);
    }
  }
  return entries.map(({ target, index }) => results[index] ?? toResult(target, { ok: false, ...deadlineFailure('Not sent') }, 0));
}
