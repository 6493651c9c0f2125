import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PHONE_APP_DIR, phoneAppTool } from './phone-app';

/** `pennypost phone-app <folder>`: the built phone app (npm run build) as static files for any host. */
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function run(positionals: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await phoneAppTool.run({ dataDir: '', values: {}, positionals, out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('pennypost phone-app', () => {
  it('writes the app with relative paths, its service worker and manifest, and says what the host needs', async () => {
    const parent = mkdtempSync(path.join(os.tmpdir(), 'pennypost-phone-app-'));
    dirs.push(parent);
    const folder = path.join(parent, 'phone');
    const result = await run([folder]);
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    const page = readFileSync(path.join(folder, 'index.html'), 'utf8');
    expect(page).toBe(readFileSync(path.join(PHONE_APP_DIR, 'index.html'), 'utf8'));
    expect(page).toMatch(/src="\.\/app\/[^"]+\.js"/);
    for (const file of ['sw.js', 'manifest.webmanifest', 'icon-192.png', 'icon-512.png']) expect(existsSync(path.join(folder, file)), file).toBe(true);
    expect(result.out).toContain('enable_cors');
  });

  it('refuses a folder that holds anything, and no folder at all', async () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'pennypost-phone-app-'));
    dirs.push(folder);
    writeFileSync(path.join(folder, 'mine.txt'), 'keep me');
    const refused = await run([folder]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('not empty');
    expect(readFileSync(path.join(folder, 'mine.txt'), 'utf8')).toBe('keep me');
    expect((await run([])).code).toBe(1);
  });
});
