import type { Failure, Outcome } from '../deliver';
import { CallError, type CallAnswer } from '../http-client';

/**
 * What the chat drivers (Telegram, Discord, Slack) share on their HTTP side: answer snippets with
 * the channel's secrets cut out, unreachable services, and rate limits whose wait is honoured
 * inside the call's time when it fits.
 */

/** A service's answer for an error message: one line, at most 160 characters, secrets replaced by ••••. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text.replace(/\s+/g, ' ').trim();
  for (const secret of secrets) if (secret && secret.length >= 6) out = out.split(secret).join('••••');
  return out.length > 160 ? out.slice(0, 160) + '…' : out;
}

/**
 * A call that got no answer: transient (CallError messages never carry the URL); systemic when the
 * outbound policy refused the address (the channel must be pointed elsewhere: retrying cannot help).
 */
export function unreachable(service: string, error: unknown): { ok: false } & Failure {
  if (error instanceof CallError && error.kind === 'refused') return { ok: false, cls: 'systemic', message: `PennyPost did not send to ${service}: ${error.message}` };
  const reason = error instanceof CallError ? error.message : 'network error';
  return { ok: false, cls: 'transient', message: `${service} could not be reached: ${reason}.` };
}

/** The answer parsed as a JSON object, or null. */
export function jsonOf(answer: CallAnswer): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(answer.text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Seconds to wait from a `Retry-After` header (whole or decimal seconds), or undefined. */
export function retryAfterHeader(answer: CallAnswer): number | undefined {
  const raw = answer.headers['retry-after'];
  const value = Number(Array.isArray(raw) ? raw[0] : raw);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** One attempt's outcome, and for a rate limit how long the service asks to wait (ms). */
export interface Attempt {
  outcome: Outcome;
  waitMs?: number;
}

/** Time a retry after the service's wait needs at least, to have a fair chance of an answer. */
const RETRY_BUDGET_MS = 500;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt`; when the service answers with a rate limit whose wait fits in this call's time
 * (with room for one more call), waits exactly that long and tries once more. A wait that does not
 * fit ends as a transient failure that deliver.ts does not retry: its quick backoff would only
 * meet the same limit again.
 */
export async function honouringRateLimit(timeoutMs: number, attempt: (timeoutMs: number) => Promise<Attempt>): Promise<Outcome> {
  const started = performance.now();
  const first = await attempt(timeoutMs);
  if (first.outcome.ok || first.waitMs === undefined) return first.outcome;
  const left = timeoutMs - (performance.now() - started);
  if (first.waitMs + RETRY_BUDGET_MS > left) return { ...first.outcome, retryable: false };
  await sleep(first.waitMs);
  const second = await attempt(Math.max(1, Math.floor(left - first.waitMs)));
  return second.outcome.ok || second.waitMs === undefined ? second.outcome : { ...second.outcome, retryable: false };
}

/** "1.5 s" for a rate limit message. */
export const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
