import path from 'node:path';
import type { RxDocument } from 'rxdb';
import { optionalService, type AppContext, type ServiceMap } from './app-context';
import { actionCaller, type ActionCaller } from './api/call-action';
import { packageVersion } from './app-info/package-root';
import { snapshotBeforeUpgrade } from './backup/upgrade';
import { finishInterruptedRestore } from './backup/restore';
import { SecretStore, type KeyProtector } from './config/secrets';
import { SettingsStore, type SettingsPatch } from './config/settings';
import { openDatabase, type AppDatabase, type OpenDatabaseOptions } from './db/database';
import { enforceDataDirPrivacy } from './db/data-dir-privacy';
import { actionsOf, checkDomainOrder, type Domain } from './domain';
import { allDomains } from './domains';
import { MaintenanceGate } from './http/maintenance';
import { systemClock, type Clock } from './lib/clock';
import { createLogger, describeError, type Logger } from './lib/logger';

export interface AppOptions {
  dataDir: string;
  /** Applied over settings.json for this run (not saved). */
  settings?: SettingsPatch;
  clock?: Clock;
  logger?: Logger;
  /** Replaces the list of domains (tests of the framework itself). */
  domains?: Domain[];
  /**
   * Wraps the data dir's keys (secrets/*.key) with an OS keychain: the desktop shell passes
   * Electron safeStorage; headless runs keep plain 0600 key files (docs/desktop.md).
   * Honoured unless settings.desktop.protectKeys is false.
   */
  keyProtector?: KeyProtector | null;
  /**
   * The database lives in this memory LevelDB and is gone when the app stops (the in-process test
   * tier: server/test-support/in-process.ts). The data dir still holds settings, keys and files.
   */
  memoryLevel?: OpenDatabaseOptions['memoryLevel'];
}

/** PennyPost without its socket: the context, the started domains and the action pipeline. */
export interface RunningApp {
  readonly app: AppContext;
  readonly domains: readonly Domain[];
  /** Runs an action through the same pipeline /api uses (lookup, limits, auth, validation, result check). */
  readonly call: ActionCaller;
  /** Holds HTTP requests while a snapshot restore swaps the database (mounted by the HTTP server). */
  readonly gate: MaintenanceGate;
  /** Stops the domains and closes the database. */
  close(): Promise<void>;
}

/**
 * Assembles PennyPost: settings, the database with every domain's collections, and the domains in
 * their start order. startServer (server.ts) puts HTTP in front of it; the in-process test tier
 * calls its actions directly.
 */
export async function startApp(options: AppOptions): Promise<RunningApp> {
  const dataDir = path.resolve(options.dataDir);
  const settings = new SettingsStore(dataDir, options.settings);
  const log = options.logger ?? createLogger(settings.get().log.level);
  const domains = options.domains ?? allDomains();
  checkDomainOrder(domains);
  // A snapshot restore that a crash interrupted is finished (or undone) before the database opens.
  const interrupted = await finishInterruptedRestore(dataDir);
  if (interrupted) log.warn('backup: ' + interrupted);
  const open = (beforeCollections?: OpenDatabaseOptions['beforeCollections']) =>
    openDatabase({
      dataDir,
      collections: domains.flatMap((d) => d.collections ?? []),
      // Disk full / read-only: writes answer 503 until the storage could reopen (server/db/README.md).
      health: {
        onEvent: (event, detail) => {
          if (event === 'recovered') log.info(`storage ${event}`, detail);
          else log.warn(`storage ${event}`, detail);
        },
      },
      beforeCollections,
      memoryLevel: options.memoryLevel,
    });
  if (!options.memoryLevel) enforceDataDirPrivacy(dataDir, log); // folders 0700, files 0600, whatever existed (docs/data-safety.md)
  const version = packageVersion();
  // Another version than the one that last ran here: a snapshot before migrations touch anything.
  let db = await open((level) => snapshotBeforeUpgrade({ dataDir, level, version, now: (options.clock ?? systemClock).now(), log }));

  const app: AppContext = {
    dataDir,
    db,
    settings,
    secrets: new SecretStore(dataDir, { protector: options.keyProtector ?? null, protect: settings.get().desktop.protectKeys }),
    clock: options.clock ?? systemClock,
    log,
    services: {} as ServiceMap,
    listening: null,
  };

  const started: Domain[] = [];
  const stopDomains = async () => {
    for (const domain of [...started].reverse()) {
      try {
        await domain.stop?.(app);
      } catch (error) {
        log.error('domain stop failed', { domain: domain.name, ...describeError(error) });
      }
    }
  };
  const gate = new MaintenanceGate();
  app.forgetUser = async (userId) => {
    for (const domain of [...started].reverse()) await domain.forgetUser?.(app, userId);
    for (const collection of Object.values(db.rx.collections)) {
      if (!('userId' in (collection.schema.jsonSchema.properties as Record<string, unknown>))) continue;
      for (;;) {
        const docs = await collection.find({ selector: { userId }, limit: 500 }).exec();
        if (docs.length === 0) break;
        await collection.bulkRemove(docs.map((doc: RxDocument) => doc.primary));
      }
    }
  };
  // Snapshot restore (server/backup/): swaps the database folder under the running server.
  app.replaceDatabase = async (replace, { ownRequests, rollback }) => {
    await gate.close('PennyPost is restoring a snapshot; try again in a few seconds.', ownRequests);
    try {
      await stopDomains();
      started.length = 0;
      await db.close();
      let failure: { error: unknown } | null = null;
      try {
        await replace();
        db = await open();
      } catch (error) {
        failure = { error };
        await rollback();
        db = await open();
      }
      (app as { db: AppDatabase }).db = db;
      for (const domain of domains) {
        await domain.start?.(app);
        started.push(domain);
      }
      if (failure) throw failure.error;
    } finally {
      gate.open();
    }
  };
  try {
    for (const domain of domains) {
      await domain.start?.(app);
      started.push(domain);
    }
  } catch (error) {
    await stopDomains();
    await db.close().catch(() => undefined);
    throw error;
  }
  const call = actionCaller({
    app,
    actions: actionsOf(domains),
    authenticator: {
      authenticate: (token) => {
        const users = optionalService(app, 'users'); // a server may run without the users domain
        if (!users) throw new Error('no users domain');
        return users.authenticate(token);
      },
    },
  });
  let closing: Promise<void> | undefined;
  return {
    app,
    domains,
    call,
    gate,
    close() {
      closing ??= (async () => {
        await stopDomains();
        await db.close();
      })();
      return closing;
    },
  };
}
