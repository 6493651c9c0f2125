import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { commonErrors, type DomainError } from '../lib/errors';
import { addressBucket } from './addresses';

/**
 * A fixed-window limiter (rate-limiter-flexible) that answers in the envelope: 429 with a
 * Retry-After header and a message that says which limit was hit and when to try again.
 */
export class RateLimit {
  private limiter: RateLimiterMemory;

  constructor(
    private readonly label: string,
    private points: number,
    private readonly durationSeconds = 60,
  ) {
    this.limiter = new RateLimiterMemory({ points, duration: durationSeconds });
  }

  /** Changes the limit (settings changed); counters start afresh. */
  setPoints(points: number): void {
    if (points === this.points) return;
    this.points = points;
    this.limiter = new RateLimiterMemory({ points, duration: this.durationSeconds });
  }

  /** Counts a caller by its address bucket (addresses.ts: all of loopback is one, IPv6 by /64). */
  consumeAddress(address: string): Promise<void> {
    return this.consume(addressBucket(address));
  }

  async consume(key: string): Promise<void> {
    try {
      await this.limiter.consume(key);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      throw this.refusal(rejection.msBeforeNext);
    }
  }

  /**
   * Refuses (the same 429) an address that is over the limit in the current window, without
   * counting this request: for limits that count only some requests (misses) but then bar all.
   */
  async checkAddress(address: string): Promise<void> {
    const state = await this.limiter.get(addressBucket(address));
    if (state && state.consumedPoints > this.points) throw this.refusal(state.msBeforeNext);
  }

  private refusal(msBeforeNext: number): DomainError {
    const retryAfter = Math.max(1, Math.ceil(msBeforeNext / 1000));
    return commonErrors
      .rateLimited(`Too many requests (${this.label}: ${this.points} per ${this.durationSeconds} s). Try again in ${retryAfter} s.`)
      .with({ retryAfterSeconds: retryAfter })
      .withHeaders({ 'Retry-After': String(retryAfter) });
  }
}
