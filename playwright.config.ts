import { defineConfig } from '@playwright/test';

/**
 * End-to-end tests drive the real UI in Chromium against a real server (port 0, temp data dir)
 * that each test file starts itself (e2e/support.ts). Playwright's own browser download is never
 * used: PENNYPOST_CHROMIUM (default /usr/bin/chromium, Debian's package) is launched instead.
 */
export default defineConfig({
  testDir: 'e2e',
  // Every run gets its own TMPDIR, which must be empty when it ends (server/test-support/temp-guard.ts).
  globalSetup: './e2e/temp-guard.setup.ts',
  timeout: 30_000,
  fullyParallel: false,
  workers: 1,
  reporter: process.env.CI ? 'line' : 'list',
  use: {
    headless: true,
    viewport: { width: 1280, height: 800 },
    launchOptions: {
      executablePath: process.env.PENNYPOST_CHROMIUM || '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    },
  },
});
