import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { MemoryLevel } from 'memory-level';
import type { AppContext } from '../app-context';
import { startApp, type AppOptions } from '../app-start';
import { mergeSettings, type SettingsPatch } from '../config/settings';
import type { LevelDb } from '../db/leveldb-storage';
import { createLogger } from '../lib/logger';
import type { PasswordCost } from '../users/password';
import { TEST_PASSWORD_COST, useTestPasswordCost } from './password-cost';
import { tempDir } from './temp-dirs';
import { directCaller, type ApiCaller } from './direct-caller';

export interface InProcessOptions extends Omit<AppOptions, 'dataDir' | 'memoryLevel'> {
  dataDir?: string;
  /** Default TEST_PASSWORD_COST. */
  passwordCost?: PasswordCost;
  /** Keep the database on disk in the data dir instead of in memory (a test that restarts on the same data). */
  onDisk?: boolean;
}

/** PennyPost assembled in this process, without a socket: actions are called through the /api pipeline directly. */
export interface InProcessApp extends ApiCaller {
  /** The same `app` a TestServer has as `server.app`. */
  readonly server: { readonly app: AppContext };
  readonly dataDir: string;
  close(): Promise<void>;
}

/** A LevelDB in memory, named so that two of them in one process are two RxDB storages. */
function memoryLevel(): LevelDb {
  const level = new MemoryLevel<Buffer, string>({ keyEncoding: 'buffer', valueEncoding: 'utf8' });
  Object.defineProperty(level, 'location', { value: `memory:${randomUUID()}` });
  return level as unknown as LevelDb;
}

/**
 * The test tier below HTTP, for domain logic: the domains started in-process on a memory
 * database with the cheap test password cost, called through the same action pipeline as /api
 * (lookup, rate limits, auth and roles, params validation, the result check) — everything but the
 * wire. Answers are envelopes as a client would read them (JSON round trip, the status of the
 * error row). HTTP tests (test-server.ts) stay for the frame and the wire.
 */
export async function startInProcess(options: InProcessOptions = {}): Promise<InProcessApp> {
  const dataDir = options.dataDir ?? tempDir('inproc');
  const settings = mergeSettings({ rateLimit: { authPerAddress: 100_000, apiPerToken: 1_000_000 } }, options.settings ?? {}) as SettingsPatch;
  const { passwordCost = TEST_PASSWORD_COST, onDisk = false, ...appOptions } = options;
  const running = await startApp({ logger: createLogger('silent'), ...appOptions, settings, dataDir, ...(onDisk ? {} : { memoryLevel }) });
  useTestPasswordCost(running.app, passwordCost);
  return {
    server: { app: running.app },
    dataDir,
    ...directCaller(running.call, running.app.log),
    async close() {
      await running.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
