import type { OutboundScope } from '../../http/outbound-policy';
import type { Clock } from '../../lib/clock';

/**
 * Access tokens per channel, for the APIs that hand one out for a secret (WeChat Official Accounts,
 * ./wechat-api.ts; WeCom applications, ./wecom-app-api.ts): kept until a safety margin before the
 * expiry the service announced, fetched one at a time per channel (50 concurrent pushes on a cold
 * channel make one token request), and tied to the credentials they were issued for.
 */

/** A token as the service issued it. */
export interface IssuedToken {
  token: string;
  /** Lifetime announced by the service, in seconds. */
  expiresIn: number;
}

/**
 * How one service issues tokens. `stale` names a token the service just refused, so that an
 * issuer can ask for a new one by force when it would hand back the same (WeChat's stable token).
 * Throws the service's own classified failure.
 */
export type TokenIssuer<Config> = (scope: OutboundScope, config: Config, timeoutMs: number, stale: string | undefined) => Promise<IssuedToken>;

/** Safety margin before the announced expiry: 5 minutes, or a tenth of short lifetimes. */
export function tokenMarginMs(expiresInSeconds: number): number {
  return Math.min(300_000, Math.floor((expiresInSeconds * 1000) / 10));
}

/** The lifetime to assume when a service announces none (both WeChat and WeCom issue tokens for 2 hours). */
const DEFAULT_LIFETIME_S = 7200;

interface TokenEntry {
  token: string;
  /** App clock ms after which the token is not used any more (expiry minus the safety margin). */
  refreshAt: number;
  fingerprint: string;
}

export class AccessTokens<Config> {
  private readonly entries = new Map<string, TokenEntry>();
  private readonly inflight = new Map<string, Promise<TokenEntry>>();

  constructor(
    private readonly clock: Clock,
    /** Identifies the credentials a token belongs to (kept in memory only, like the token). */
    private readonly fingerprintOf: (config: Config) => string,
    private readonly issue: TokenIssuer<Config>,
    /** The failure to throw when the service keeps handing out a token that it then refuses. */
    private readonly refusedAgain: () => Error,
  ) {}

  drop(channelId: string): void {
    this.entries.delete(channelId);
  }

  /**
   * A usable token. `stale` names a token the service just refused: a cached or in-flight token
   * equal to it is not used, and a new one is fetched (one refresh for every caller).
   */
  async get(scope: OutboundScope, channelId: string, config: Config, timeoutMs: number, stale?: string): Promise<string> {
    const fingerprint = this.fingerprintOf(config);
    for (let round = 0; round < 3; round++) {
      const entry = this.entries.get(channelId);
      if (entry && entry.fingerprint === fingerprint && entry.token !== stale && this.clock.now() < entry.refreshAt) return entry.token;
      if (entry && (entry.token === stale || entry.fingerprint !== fingerprint)) this.entries.delete(channelId);
      let pending = this.inflight.get(channelId);
      if (!pending) {
        pending = this.refresh(scope, config, fingerprint, timeoutMs, stale).finally(() => {
          if (this.inflight.get(channelId) === pending) this.inflight.delete(channelId);
        });
        this.inflight.set(channelId, pending);
        const fresh = await pending;
        if (fresh.token === stale) continue;
        this.entries.set(channelId, fresh);
        return fresh.token;
      }
      const fresh = await pending;
      if (fresh.fingerprint === fingerprint && fresh.token !== stale) return fresh.token;
      // The refresh in flight was started before this token went stale: go round once more.
    }
    throw this.refusedAgain();
  }

  private async refresh(scope: OutboundScope, config: Config, fingerprint: string, timeoutMs: number, stale?: string): Promise<TokenEntry> {
    const issued = await this.issue(scope, config, timeoutMs, stale);
    const expiresIn = Number.isFinite(issued.expiresIn) && issued.expiresIn > 0 ? issued.expiresIn : DEFAULT_LIFETIME_S;
    return { token: issued.token, refreshAt: this.clock.now() + expiresIn * 1000 - tokenMarginMs(expiresIn), fingerprint };
  }
}
