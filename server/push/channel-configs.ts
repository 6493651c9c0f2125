import type { OutboundPolicy } from '../http/outbound-policy';
import { channelDriver } from './channels';
import { configText } from './channels/driver';
import { pushErrors } from './errors';
import { isMasked } from './keys';
import type { TargetDoc } from './schema';
import type { SecretBox } from './secret-box';

/** `params.config` as the actions hand it over: the fields of one driver's config schema, each optional. */
export type ChannelInput = Readonly<Record<string, unknown>>;

type StoredChannel = Pick<TargetDoc, 'type' | 'config'>;

/**
 * Channel configs between the API and the store, for every type through its driver: checked and
 * completed by the driver, secrets sealed at rest with this server's key, opened for delivery,
 * masked for answers. Secrets stay where they were entered (see `normalize`), and destinations are
 * where the account may send (`checkDestinations`, server/http/outbound-policy.ts).
 */
export class ChannelConfigs {
  constructor(
    private readonly box: SecretBox,
    private readonly outbound: OutboundPolicy,
  ) {}

  /**
   * The outbound policy's save-time check of a channel's destinations (its driver's endpoints) for
   * the account saving it: never this server (400), a local address only for the owner or an
   * allowed admin (403), each naming its config field. Deliveries check every connection again.
   */
  async checkDestinations(userId: string, channel: StoredChannel): Promise<void> {
    await this.outbound.check(userId, channelDriver(channel.type).endpoints(this.open(channel)));
  }

  /** The same check for a recipient address that names a server of its own (a full URL), blaming `address`. */
  async checkRecipient(userId: string, channel: StoredChannel, address: string): Promise<void> {
    const endpoint = channelDriver(channel.type).recipientEndpoint?.(this.open(channel), address);
    if (endpoint) await this.outbound.check(userId, [endpoint]);
  }

  /**
   * The stored config with its secrets readable (for delivery, checks and masking). A secret that
   * cannot be opened (the data folder's key was replaced or damaged) reads as '' — as if it had
   * never been entered — so lists still show the channel and an update asks for it again;
   * `unreadableSecrets` names them for delivery.
   */
  open(channel: StoredChannel): Record<string, unknown> {
    const out = { ...channel.config };
    for (const key of Object.keys(channelDriver(channel.type).secrets)) {
      const value = out[key];
      if (typeof value === 'string') out[key] = this.tryUnseal(value) ?? '';
    }
    return out;
  }

  /** The names (as a person knows them) of the stored secrets this server's key cannot open. */
  unreadableSecrets(channel: StoredChannel): string[] {
    return Object.entries(channelDriver(channel.type).secrets)
      .filter(([key]) => typeof channel.config[key] === 'string' && this.tryUnseal(channel.config[key]) === null)
      .map(([, label]) => label);
  }

  private tryUnseal(value: string): string | null {
    try {
      return this.box.unseal(value);
    } catch {
      return null;
    }
  }

  /** The config as answers show it: secrets masked. */
  masked(channel: StoredChannel): Record<string, unknown> {
    return channelDriver(channel.type).mask(this.open(channel));
  }

  /**
   * Checks and completes a config for its type and seals it. `previous` (stored) supplies the
   * fields left out: a masked secret sent back unchanged (or left out) keeps the stored one.
   */
  normalize(type: string, input: ChannelInput, previous?: StoredChannel): Record<string, unknown> {
    const driver = channelDriver(type);
    const given = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
    const takes = Object.keys(driver.config.properties);
    for (const key of Object.keys(given)) {
      if (!takes.includes(key)) throw pushErrors.configDoesNotApply(key, type, takes).at(`config.${key}`);
    }
    const before = previous ? this.open(previous) : undefined;
    const merged: Record<string, unknown> = { ...(before ?? {}), ...given };
    for (const key of Object.keys(driver.secrets)) {
      if (isMasked(given[key])) merged[key] = before?.[key] ?? '';
    }
    const next: Record<string, unknown> = { ...driver.normalize(merged) };
    if (before) this.checkSecretsStay(type, given, before, next);
    for (const key of Object.keys(driver.secrets)) {
      const value = next[key];
      if (typeof value === 'string') next[key] = this.box.seal(value);
    }
    return next;
  }

  /**
   * Secrets stay where they were entered: a config change that moves the channel to another
   * destination must carry every stored secret again. Left out, empty or the masked value that the
   * API hands out is refused (400), so a stored secret never goes to an address it was not entered for.
   */
  private checkSecretsStay(type: string, given: Record<string, unknown>, previous: Record<string, unknown>, next: Record<string, unknown>): void {
    const driver = channelDriver(type);
    if (driver.destination(previous) === driver.destination(next)) return;
    for (const [key, label] of Object.entries(driver.secrets)) {
      if (!configText(previous[key])) continue;
      const value = given[key];
      if (typeof value === 'string' && value.trim() !== '' && !isMasked(value)) continue;
      throw pushErrors.secretMustBeEnteredAgain(label, key, driver.movedBy).at(`config.${key}`);
    }
  }
}
