import { chmodSync, cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ClassicLevel } from 'classic-level';
import { getPrimaryFieldOfPrimaryKey } from 'rxdb';
import { DATABASE_NAME, DataDirLockedError, levelDirOf } from '../db/database';
import { collectionPrefix, docPrefix, encodeKey, prefixEnd } from '../db/leveldb-storage/keys';
import { allDomains } from '../domains';
import { OLD_USERS_STORAGES } from '../users/move-to-local-store';
import { enforceDataDirPrivacy } from '../db/data-dir-privacy';
import { levelDataFiles, levelDirLockedByOtherProcess } from '../db/integrity';
import { printInspection } from './check';
import { inspectDatabase, withToolDatabase, type Inspection } from './inspect';
import type { DataTool } from './tool';

/** LevelDB's repair writes what it did to db/LOG: the lines worth showing. */
function repairLogLines(levelDir: string): string[] {
  try {
    return readFileSync(path.join(levelDir, 'LOG'), 'utf8')
      .split('\n')
      .map((line) => line.replace(/^\S+ \S+ /, '').trim())
      .filter((line) => /ops saved|entries|Archiving|Corruption|dropping|ignoring|lost|Repair/i.test(line));
  } catch {
    return [];
  }
}

/**
 * LevelDB's repair keeps every entry it can read, checksummed or not: a document whose bytes were
 * damaged may come back as broken JSON. Those documents (and index entries pointing at documents
 * that are not there) are taken out in one batch and written to `<backup>/unreadable-documents.jsonl`.
 */
async function quarantineDamagedDocuments(levelDir: string, backup: string): Promise<string[]> {
  const level = new ClassicLevel<Buffer, string>(levelDir, { keyEncoding: 'buffer', valueEncoding: 'utf8', createIfMissing: false });
  await level.open();
  const removed: string[] = [];
  const quarantined: string[] = [];
  try {
    const batch = level.batch();
    // The open collections, and the old accounts collection a newer start has not moved to the local store yet.
    const stored = [
      ...allDomains()
        .flatMap((d) => d.collections ?? [])
        .map((def) => {
          const primaryKey: string = getPrimaryFieldOfPrimaryKey(def.schema.primaryKey);
          return { name: def.name, version: def.schema.version, primaryKey };
        }),
      ...OLD_USERS_STORAGES,
    ];
    for (const def of stored) {
      const prefix = collectionPrefix(DATABASE_NAME, def.name, def.version);
      const dp = docPrefix(prefix);
      const primary = def.primaryKey;
      const good = new Set<string>();
      for await (const [key, raw] of level.iterator({ gte: encodeKey(dp), lt: encodeKey(prefixEnd(dp)) })) {
        const id = Buffer.from(key).swap16().toString('utf16le').slice(dp.length);
        // Stored JSON: the schema's object, or anything damaged bytes decode to.
        let doc: Record<string, unknown> | undefined;
        try {
          doc = JSON.parse(raw) as Record<string, unknown> | undefined;
        } catch {
          doc = undefined;
        }
        if (doc && doc[primary] === id) {
          good.add(id);
          continue;
        }
        batch.del(key);
        removed.push(`${def.name}/${id}: damaged document taken out`);
        quarantined.push(JSON.stringify({ collection: def.name, id, raw }));
      }
      const ip = `${prefix}i\u0001`;
      for await (const [key, docId] of level.iterator({ gte: encodeKey(ip), lt: encodeKey(prefixEnd(ip)) })) {
        if (!good.has(docId)) {
          batch.del(key);
          removed.push(`${def.name}: index entry for missing document ${docId} taken out`);
        }
      }
    }
    if (quarantined.length > 0) writeFileSync(path.join(backup, 'unreadable-documents.jsonl'), quarantined.join('\n') + '\n', { mode: 0o600 });
    if (removed.length > 0) await batch.write({ sync: true });
    else await batch.close();
    // Saved views (the 'derived' sublevel, server/db/derived-store.ts) describe the documents before the repair: the next
    // start rebuilds them from what is there now.
    await level.sublevel('derived').clear();
  } finally {
    await level.close();
  }
  return removed;
}

/**
 * `pennypost repair --data-dir D`: copies db/ to db.before-repair-<time>/, runs LevelDB's repair
 * (it rebuilds CURRENT and the MANIFEST from the table and log files, keeps every record it can
 * read, and moves files it cannot use to db/lost/), then reports what is there now and which
 * balances changed. Exit 0 when the result checks clean, 1 otherwise, 2 when the data dir is in use.
 */
export const repairTool: DataTool = {
  name: 'repair',
  summary: 'recover a damaged database (copies the db folder aside first, then reports what changed)',
  async run(ctx) {
    const dataDir = path.resolve(ctx.dataDir);
    const levelDir = levelDirOf(dataDir);
    ctx.out(`PennyPost repair of ${dataDir}`);
    if (!existsSync(levelDir) || levelDataFiles(levelDir).length === 0) {
      ctx.err(`There is no database in ${levelDir}: nothing to repair.`);
      return 1;
    }
    // LevelDB's repair takes no lock of its own: never run it under a running PennyPost.
    if (await levelDirLockedByOtherProcess(levelDir)) {
      ctx.err(new DataDirLockedError(dataDir).message);
      return 2;
    }

    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const backup = path.join(dataDir, `db.before-repair-${stamp}`);
    cpSync(levelDir, backup, { recursive: true, preserveTimestamps: true, errorOnExist: true, filter: (src) => path.basename(src) !== 'LOCK' });
    chmodSync(backup, 0o700);
    ctx.out(`1. Copied ${levelDir} to ${backup} (untouched; delete it once you are satisfied).`);

    let before: Inspection | null = null;
    try {
      before = await withToolDatabase(dataDir, inspectDatabase);
      ctx.out(`2. Before the repair: ${before.problems.length} problem(s).`);
    } catch (error) {
      if (error instanceof DataDirLockedError) {
        ctx.err(error.message);
        return 2;
      }
      ctx.out(`2. Before the repair the database could not be opened safely, so balances before are unknown: ${(error as Error).message.split('. ').at(0) ?? ''}.`);
    }

    try {
      await ClassicLevel.repair(levelDir);
    } catch (error) {
      ctx.err(`LevelDB's repair failed: ${(error as Error).message}. The copy in ${backup} is as the database was.`);
      return 1;
    }
    ctx.out('3. LevelDB repair done:');
    for (const line of repairLogLines(levelDir)) ctx.out(`     ${line}`);
    const lost = path.join(levelDir, 'lost');
    if (existsSync(lost)) ctx.out(`   LevelDB moved the files it replaced or could not use to ${lost}: ${readdirSync(lost).join(', ') || '(none)'}`);
    try {
      const removed = await quarantineDamagedDocuments(levelDir, backup);
      if (removed.length > 0) {
        ctx.out(`   Damaged entries LevelDB brought back, taken out (their bytes are in ${path.join(backup, 'unreadable-documents.jsonl')}):`);
        for (const line of removed.slice(0, 50)) ctx.out(`     ${line}`);
        if (removed.length > 50) ctx.out(`     … and ${removed.length - 50} more`);
      }
    } catch (error) {
      ctx.out(`   Looking for damaged documents failed: ${(error as Error).message}`);
    }

    let after: Inspection;
    try {
      after = await withToolDatabase(dataDir, inspectDatabase);
    } catch (error) {
      ctx.out(`Result: the repaired database still cannot be opened: ${(error as Error).message}`);
      ctx.out(`The data as it was is in ${backup}.`);
      return 1;
    } finally {
      enforceDataDirPrivacy(dataDir);
    }
    ctx.out('4. After the repair:');
    printInspection(ctx, after);
    for (const c of after.collections) {
      const was = before?.collections.find((b) => b.name === c.name);
      if (was && was.documents !== c.documents) ctx.out(`   ${c.name}: ${was.documents} → ${c.documents} documents`);
    }
    const changed: string[] = [];
    if (before) {
      const old = new Map(before.balances.map((b) => [b.assetId, b]));
      for (const b of after.balances) {
        const o = old.get(b.assetId);
        if (!o) changed.push(`asset ${b.name} (${b.assetId}): not readable before, now ${b.exact} minor units of ${b.currency}`);
        else if (o.exact !== b.exact) changed.push(`asset ${b.name} (${b.assetId}): ${o.exact} → ${b.exact} minor units of ${b.currency}`);
        old.delete(b.assetId);
      }
      for (const o of old.values()) changed.push(`asset ${o.name} (${o.assetId}): gone (was ${o.exact} minor units of ${o.currency})`);
      ctx.out(changed.length === 0 ? '   Balances: none changed.' : `   Balances changed (${changed.length}):`);
      for (const line of changed) ctx.out(`     ${line}`);
    } else {
      ctx.out('   Balances now:');
      for (const b of after.balances) ctx.out(`     asset ${b.name} (${b.assetId}): ${b.exact} minor units of ${b.currency}`);
    }
    if (after.problems.length > 0) {
      ctx.out(`Result: recovered what LevelDB could read, but ${after.problems.length} problem(s) remain:`);
      for (const problem of after.problems) ctx.out(`  - ${problem}`);
      ctx.out(`The data as it was is in ${backup}. See docs/data-safety.md.`);
      return 1;
    }
    ctx.out(`Result: repaired; the database checks clean. Compare the balances above with your statements; the data as it was is in ${backup}.`);
    return 0;
  },
};
