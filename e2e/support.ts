import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, type RunningServer } from '../server/server';
import { createLogger } from '../server/lib/logger';

/** A real PennyPost for a browser test: 127.0.0.1, port 0, its own temp data dir. */
export async function startE2eServer(): Promise<{ server: RunningServer; stop: () => Promise<void> }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pennypost-e2e-'));
  const server = await startServer({ dataDir, port: 0, host: '127.0.0.1', logger: createLogger('warn') });
  return {
    server,
    stop: async () => {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
