import { mergeSettings, type SettingsPatch } from '../../config/settings';
import type { ServerOptions } from '../../server';
import { registerUser, startTestServer, type ApiAnswer, type TestServer } from '../../test-support/test-server';
import { usersDomain } from '../../users';
import { pushDomain } from '..';

/** A JSON answer as the tests read it: untyped like TestServer.api's `data` (the tests assert its shape). */
type Json = ApiAnswer['data'];

/** An /api answer without its headers. */
type CallAnswer<T> = Pick<ApiAnswer<T>, 'code' | 'message' | 'data' | 'status'>;

export interface PushTestServer extends TestServer {
  user: { token: string; id: string };
  /** /api as the test user. */
  call(action: string, params?: unknown): Promise<CallAnswer<Json>>;
  /** Creates a channel, an app on it and recipients; returns ids and the key. */
  setup(options: {
    type: 'wechat' | 'desktop' | 'webhook';
    config?: Record<string, unknown>;
    app?: Record<string, unknown>;
    recipients?: string[];
  }): Promise<{ channelId: string; appId: string; appKey: string }>;
  /** A raw /send-style request; body objects are sent as JSON unless `form` is set. */
  push(
    path: string,
    init?: { method?: string; query?: Record<string, string>; json?: unknown; form?: Record<string, string>; headers?: Record<string, string> },
  ): Promise<{
    status: number;
    headers: Headers;
    body: Json;
  }>;
}

/** A real server with only the users and push domains (other domains' work in progress stays out). */
export async function startPushServer(options: Partial<ServerOptions> = {}): Promise<PushTestServer> {
  const settings = mergeSettings({ push: { sendPerAppKey: 100_000, sendPerAddress: 100_000 } }, options.settings ?? {}) as SettingsPatch;
  const t = await startTestServer({ domains: [usersDomain(), pushDomain()], ...options, settings });
  const user = await registerUser(t);
  const call = async <T = Json>(action: string, params: unknown = {}): Promise<CallAnswer<T>> => {
    const answer = await t.api<T>(action, params, user.token);
    return { code: answer.code, message: answer.message, data: answer.data, status: answer.status };
  };
  return {
    ...t,
    user,
    call,
    async setup({ type, config = {}, app = {}, recipients = [] }) {
      const channel = await call<{ id: string }>('push.createChannel', { name: `${type} channel`, type, config });
      if (channel.code !== 200 || !channel.data) throw new Error(`createChannel: ${channel.message}`);
      const created = await call<{ id: string; appKey: string }>('push.createApp', { name: 'Test app', channelId: channel.data.id, ...app });
      if (created.code !== 200 || !created.data) throw new Error(`createApp: ${created.message}`);
      for (const address of recipients) {
        const added = await call('push.addRecipient', { appId: created.data.id, address, name: `name-${address}` });
        if (added.code !== 200) throw new Error(`addRecipient: ${added.message}`);
      }
      return { channelId: channel.data.id, appId: created.data.id, appKey: created.data.appKey };
    },
    async push(path, init = {}) {
      const query = init.query ? '?' + new URLSearchParams(init.query).toString() : '';
      const headers: Record<string, string> = { ...(init.headers ?? {}) };
      let body: string | undefined;
      if (init.json !== undefined) {
        headers['content-type'] ??= 'application/json';
        body = typeof init.json === 'string' ? init.json : JSON.stringify(init.json);
      } else if (init.form) {
        headers['content-type'] ??= 'application/x-www-form-urlencoded';
        body = new URLSearchParams(init.form).toString();
      }
      const res = await t.fetch(path + query, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON
      }
      return { status: res.status, headers: res.headers, body: parsed };
    },
  };
}
