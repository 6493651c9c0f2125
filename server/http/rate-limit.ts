import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { commonErrors } from '../lib/errors';
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
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw commonErrors
        .rateLimited(`Too many requests (${this.label}: ${this.points} per ${this.durationSeconds} s). Try again in ${retryAfter} s.`)
        .with({ retryAfterSeconds: retryAfter })
        .withHeaders({ 'Retry-After': String(retryAfter) });
    }
  }
}
