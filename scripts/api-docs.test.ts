import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { currentApiDocs } from './gen-api-docs';
import { allDomains } from '../server/domains';
import { actionsOf } from '../server/domain';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

it('docs/api.md matches the action declarations (run `npm run docs:api` after changing actions)', () => {
  const committed = readFileSync(path.join(root, 'docs/api.md'), 'utf8');
  expect(committed).toBe(currentApiDocs());
});

it('documents every action with a summary and its result schema', () => {
  const docs = currentApiDocs();
  for (const action of actionsOf(allDomains())) {
    expect(docs).toContain(`### ${action.name}`);
    expect(action.summary.length).toBeGreaterThan(10);
    // The type line rendered from the action's result schema.
    const page = docs.slice(docs.indexOf(`### ${action.name}\n`));
    expect(page.slice(0, page.indexOf('\n### ', 5) >>> 0)).toMatch(/\n- Returns: `[^`]+`/);
  }
});
