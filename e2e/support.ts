import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, type Page } from '@playwright/test';
import { startServer, type RunningServer, type ServerOptions } from '../server/server';
import { createLogger } from '../server/lib/logger';

/** A real PennyPost for a browser test: 127.0.0.1, port 0, its own temp data dir, the built UI. */
export async function startE2eServer(options: Partial<ServerOptions> = {}): Promise<{ server: RunningServer; dataDir: string; stop: () => Promise<void> }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pennypost-e2e-'));
  const server = await startServer({ dataDir, port: 0, host: '127.0.0.1', logger: createLogger('warn'), ...options });
  return {
    server,
    dataDir,
    stop: async () => {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Collects what must never happen on any screen: CSP violations, uncaught page errors, console
 * errors, and requests to anything but the server itself (the app works offline).
 */
export function watchPage(page: Page) {
  const problems: string[] = [];
  page.on('console', (message) => {
    const text = message.text();
    if (/Content[- ]Security[- ]Policy|Refused to/i.test(text)) problems.push(`CSP: ${text}`);
    else if (message.type() === 'error' && !/status of (400|401|403|404|409|413|415|429)/.test(text)) problems.push(`console error: ${text}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) && !['data:', 'blob:'].includes(url.protocol)) problems.push(`remote request: ${request.url()}`);
  });
  return {
    problems,
    expectClean() {
      expect(problems).toEqual([]);
    },
  };
}
