import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { currentSyncDocs } from './gen-sync-docs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

it('docs/sync.md shows the current shapes of every synced collection (run `npm run docs:sync`)', () => {
  expect(readFileSync(path.join(root, 'docs/sync.md'), 'utf8')).toBe(currentSyncDocs());
});
