import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, type Page } from '@playwright/test';
import { startServer, type RunningServer, type ServerOptions } from '../server/server';
import { createLogger } from '../server/lib/logger';
import { useTestPasswordCost } from '../server/test-support/password-cost';

/** A real PennyPost for a browser test: 127.0.0.1, port 0, its own temp data dir, the built UI. */
export async function startE2eServer(options: Partial<ServerOptions> = {}): Promise<{ server: RunningServer; dataDir: string; stop: () => Promise<void> }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pennypost-e2e-'));
  // Every answer the UI gets is checked against its action's result schema (server/api/result-check.ts).
  process.env.PENNYPOST_CHECK_RESULTS = '1';
  const server = await startServer({ dataDir, port: 0, host: '127.0.0.1', logger: createLogger('warn'), ...options });
  useTestPasswordCost(server.app); // cheap password hashes for the tests' sign-ups
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
export function watchPage(page: Page, { offline = false } = {}) {
  const problems: string[] = [];
  page.on('console', (message) => {
    const text = message.text();
    // A test that takes the network away expects the requests it makes meanwhile to fail.
    if (offline && text.includes('net::ERR_INTERNET_DISCONNECTED')) return;
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

/**
 * Resolves once the page is still: no finite CSS animation or transition running and no change to
 * the DOM (a chart drawing itself moves its SVG) for 100 ms. Endless animations (spinners) are not
 * waited for. A condition, not a fixed wait: it ends as soon as the screen has settled.
 */
export async function untilStill(page: Page): Promise<void> {
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        const QUIET_MS = 100;
        let last = performance.now();
        const observer = new MutationObserver(() => (last = performance.now()));
        observer.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
        const moving = () => document.getAnimations().some((a) => a.playState === 'running' && a.effect?.getTiming().iterations !== Infinity);
        const check = () => {
          if (moving()) last = performance.now();
          if (performance.now() - last >= QUIET_MS) {
            observer.disconnect();
            resolve();
          } else requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
      }),
  );
}
