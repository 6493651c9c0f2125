import { rmSync } from 'node:fs';
import type { ManualClock } from '../../lib/clock';
import type { DesktopMessage } from '../../push/desktop';
import { registerUser, startTestServer, tempDataDir, type ApiAnswer, type TestServer } from '../../test-support/test-server';
import type { PushNotifier } from '../notifier';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** A JSON answer as the tests read it (untyped like TestServer.api's `data`). */
type Json = ApiAnswer['data'];

export type User = Awaited<ReturnType<typeof registerUser>>;

/**
 * A real PennyPost (every domain) on a data dir that outlives restarts, with its reminders in UTC
 * and every desktop push it shows collected in `desktop`.
 */
export class NotifyHarness {
  t!: TestServer;
  readonly desktop: DesktopMessage[] = [];
  readonly dataDir = tempDataDir('notify');

  constructor(readonly clock: ManualClock) {}

  get notifier(): PushNotifier {
    return this.t.server.app.services.notify;
  }

  async start(settings: Record<string, unknown> = {}): Promise<this> {
    // Tests travel weeks through time; sessions must outlive that.
    this.t = await startTestServer({ clock: this.clock, dataDir: this.dataDir, settings: { auth: { tokenLifetimeSeconds: 5 * 365 * 86_400 }, ...settings } });
    this.notifier.timeZone = 'UTC';
    this.t.server.app.services.push.onDesktopMessage((m) => this.desktop.push(m));
    return this;
  }

  async restart(): Promise<void> {
    await this.t.close(true);
    await this.start();
  }

  async close(): Promise<void> {
    await this.t.close(true);
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  async call<T = Json>(user: User, action: string, params: unknown = {}): Promise<ApiAnswer<T>> {
    return this.t.api<T>(action, params, user.token);
  }

  async ok<T = Json>(user: User, action: string, params: unknown = {}): Promise<T> {
    const answer = await this.call<T>(user, action, params);
    if (answer.code !== 200) throw new Error(`${action} → ${answer.code} ${answer.message}`);
    return answer.data as T;
  }

  /** A channel, an app on it and its recipients (none for the desktop channel). */
  async app(user: User, type: 'wechat' | 'desktop', config: Record<string, unknown> = {}, recipients: string[] = []): Promise<string> {
    const channel = await this.ok<{ id: string }>(user, 'push.createChannel', { name: `${type} channel`, type, config });
    const app = await this.ok<{ id: string }>(user, 'push.createApp', { name: `Reminders via ${type}`, channelId: channel.id });
    for (const address of recipients) await this.ok(user, 'push.addRecipient', { appId: app.id, address, name: `name-${address}` });
    return app.id;
  }

  /** The push history of the account (newest first). */
  async history(user: User): Promise<Array<{ title: string; caller?: string; status: string; appId: string }>> {
    return (await this.ok<{ list: Array<{ title: string; status: string; appId: string }> }>(user, 'push.queryMessages', { pageSize: 100 })).list;
  }
}

/** Polls until `accept` holds (events arrive asynchronously). */
export async function eventually<T>(fn: () => Promise<T> | T, accept: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await fn();
  while (!accept(last)) {
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms; last value: ${JSON.stringify(last).slice(0, 400)}`);
    await new Promise((r) => setTimeout(r, 25));
    last = await fn();
  }
  return last;
}
