import { channelDrivers } from './channels';
import type { ChannelEnv, ChannelLink } from './channels/driver';

/** The live side of every channel driver on one server (caches such as access tokens live there). */
export class ChannelLinks {
  private readonly links = new Map<string, ChannelLink<object, unknown>>();

  constructor(env: ChannelEnv) {
    for (const driver of channelDrivers()) this.links.set(driver.type, driver.connect(env));
  }

  get(type: string): ChannelLink<object, unknown> {
    const link = this.links.get(type);
    if (!link) throw new Error(`push: no channel driver for type "${type}"`);
    return link;
  }

  /** Releases what every link holds (e.g. email's pooled SMTP connections); the reasons of those that failed. */
  async close(): Promise<unknown[]> {
    const closed = await Promise.allSettled([...this.links.values()].map(async (link) => link.close?.()));
    return closed.flatMap((result): unknown[] => (result.status === 'rejected' ? [result.reason as unknown] : []));
  }
}
