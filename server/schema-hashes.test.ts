import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createRxSchema, defaultHashSha256 } from 'rxdb';
import { describe, expect, it } from 'vitest';
import { allDomains } from './domains';

/**
 * A collection's schema hash is stored with its data: the same version with another hash makes
 * RxDB refuse to open a person's existing data dir. Rewriting a schema (another helper, another
 * key order in `required`) must leave the hash alone, or bump `version` with a migration.
 * `PENNYPOST_WRITE_SCHEMA_HASHES=1 npx vitest run server/schema-hashes.test.ts` rewrites the list
 * after a deliberate version bump.
 */
const FILE = path.join(import.meta.dirname, 'schema-hashes.json');

async function currentHashes(): Promise<Record<string, { version: number; hash: string }>> {
  const out: Record<string, { version: number; hash: string }> = {};
  for (const def of allDomains().flatMap((d) => d.collections ?? [])) {
    const schema = createRxSchema(JSON.parse(JSON.stringify(def.schema)), defaultHashSha256);
    out[def.name] = { version: def.schema.version, hash: await schema.hash };
  }
  return out;
}

describe('collection schemas', () => {
  it('keep the hash stored with existing data (or bump the version)', async () => {
    const hashes = await currentHashes();
    if (process.env.PENNYPOST_WRITE_SCHEMA_HASHES === '1') writeFileSync(FILE, JSON.stringify(hashes, null, 2) + '\n');
    const recorded = JSON.parse(readFileSync(FILE, 'utf8')) as Partial<typeof hashes>; // a new collection has no entry yet
    for (const [name, now] of Object.entries(hashes)) {
      const before = recorded[name];
      if (before && before.version === now.version) expect(now.hash, `${name} v${now.version}: same version, another schema`).toBe(before.hash);
      else expect(now.version, `${name}: a new version needs its entry in schema-hashes.json`).toBe(before?.version);
    }
  });
});
