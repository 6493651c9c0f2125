import { rmSync } from 'node:fs';
import { startServer, type RunningServer, type ServerOptions } from '../server';
import { createLogger } from '../lib/logger';
import type { Envelope } from '../http/envelope';
import { mergeSettings, type SettingsPatch } from '../config/settings';
import { tempDir } from './temp-dirs';
import type { PasswordCost } from '../users/password';
import { TEST_PASSWORD_COST, useTestPasswordCost } from './password-cost';
import { directCaller, type ApiAnswer, type ApiCaller } from './direct-caller';

export type { ApiAnswer, ApiCaller } from './direct-caller';

export { TEST_PASSWORD_COST } from './password-cost';

export interface TestServerOptions extends Partial<ServerOptions> {
  /** Default TEST_PASSWORD_COST; a test of the production cost passes DEFAULT_PASSWORD_COST. */
  passwordCost?: PasswordCost;
  /**
   * `api` posts to /api over HTTP. Without it, `api` calls the same server's action pipeline
   * in-process (the tier for domain logic, in-process.ts): the same checks and envelopes, no
   * socket, about ten times faster. Tests of the frame and the wire (body limits, headers, CORS,
   * the maintenance gate, concurrency over sockets) ask for the wire.
   */
  wire?: boolean;
}

/** A temporary data dir, removed after the test file (test-support/temp-dirs.ts) if the test does not remove it first. */
export function tempDataDir(label = 'pp'): string {
  return tempDir(label);
}

export interface TestServer extends ApiCaller {
  server: RunningServer;
  url: string;
  dataDir: string;
  /** Raw fetch against the server. */
  fetch(pathname: string, init?: RequestInit): Promise<Response>;
  /** Stops the server; `keepData` leaves the data dir for a restart. */
  close(keepData?: boolean): Promise<void>;
}

/** A real PennyPost on 127.0.0.1, port 0, with a fresh (or given) data dir. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? tempDataDir();
  // Tests sign in and call far more often than people do; the rate limits have their own tests,
  // which set the limits they check.
  const settings = mergeSettings({ rateLimit: { authPerAddress: 100_000, apiPerToken: 1_000_000 } }, options.settings ?? {}) as SettingsPatch;
  const { passwordCost = TEST_PASSWORD_COST, wire = false, ...serverOptions } = options;
  const server = await startServer({ port: 0, host: '127.0.0.1', logger: createLogger('silent'), ...serverOptions, settings, dataDir });
  useTestPasswordCost(server.app, passwordCost); // before the first request: startServer hashes nothing
  const url = server.url;
  const doFetch = (pathname: string, init?: RequestInit) => fetch(url + pathname, init);
  return {
    server,
    url,
    dataDir,
    api: wire ? wireApi : directCaller(server.call, server.app.log).api,
    fetch: doFetch,
    async close(keepData = false) {
      await server.close();
      if (!keepData && !options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };

  async function wireApi(action: string, params: unknown = {}, token?: string): Promise<ApiAnswer> {
    const res = await doFetch('/api', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ action, params }),
    });
    const body = (await res.json()) as Envelope;
    return { ...body, status: res.status, headers: res.headers } as ApiAnswer;
  }
}

let counter = 0;
/** Registers a fresh user and returns its token and id. */
export async function registerUser(t: ApiCaller, overrides: Partial<{ username: string; email: string; password: string }> = {}) {
  counter++;
  const suffix = `${process.pid}${counter}`;
  const params = { username: `user${suffix}`, email: `user${suffix}@example.com`, password: 'correct horse battery', ...overrides };
  const answer = await t.api('user.register', params);
  if (answer.code !== 200) throw new Error(`register failed: ${answer.code} ${answer.message}`);
  return { token: answer.data.token as string, id: answer.data.id as string, ...params };
}
