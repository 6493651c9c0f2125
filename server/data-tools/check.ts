import { existsSync } from 'node:fs';
import { DataDirLockedError, levelDirOf } from '../db/database';
import { levelDataFiles, levelDirLockedByOtherProcess } from '../db/integrity';
import type { DataTool, DataToolContext } from './tool';
import { inspectDatabase, withToolDatabase, type Inspection } from './inspect';

/** Prints what `inspectDatabase` found; returns the number of problems. */
export function printInspection(ctx: Pick<DataToolContext, 'out'>, inspection: Inspection): number {
  ctx.out(`  stored entries readable: ${inspection.entries}`);
  for (const c of inspection.collections) {
    ctx.out(`  ${c.name.padEnd(14)} ${String(c.documents).padStart(7)} documents, ${c.deleted} deleted, ${c.indexEntries} index entries`);
  }
  ctx.out(`  local store    ${String(inspection.localEntries).padStart(7)} entries`);
  const computed = inspection.balances.filter((b) => b.balance !== null).length;
  ctx.out(`  balances: ${computed} of ${inspection.balances.length} assets recomputed from the records`);
  return inspection.problems.length;
}

/**
 * `pennypost check --data-dir D`: verifies a data dir while no server uses it, changing nothing
 * but what an ordinary open does. Exit 0 clean, 1 problems, 2 the data dir is in use.
 */
export const checkTool: DataTool = {
  name: 'check',
  summary: 'verify a stopped data dir: every document readable and valid, every balance recomputed',
  async run(ctx) {
    const levelDir = levelDirOf(ctx.dataDir);
    ctx.out(`PennyPost check of ${ctx.dataDir}`);
    if (!existsSync(levelDir) || levelDataFiles(levelDir).length === 0) {
      ctx.err(`There is no database in ${levelDir}: nothing to check (a data dir gets one at the first start).`);
      return 1;
    }
    if (await levelDirLockedByOtherProcess(levelDir)) {
      ctx.err(new DataDirLockedError(ctx.dataDir).message);
      return 2;
    }
    let inspection: Inspection;
    try {
      inspection = await withToolDatabase(ctx.dataDir, inspectDatabase);
    } catch (error) {
      if (error instanceof DataDirLockedError) {
        ctx.err(error.message);
        return 2;
      }
      ctx.out('  the database cannot be opened');
      ctx.out(`Result: damaged. ${(error as Error).message}`);
      return 1;
    }
    const problems = printInspection(ctx, inspection);
    if (problems === 0) {
      ctx.out('Result: clean — every document is readable and valid, every balance equals its recomputation, and every saved ledger view matches the records.');
      return 0;
    }
    ctx.out(`Result: ${problems} problem(s):`);
    for (const problem of inspection.problems) ctx.out(`  - ${problem}`);
    ctx.out(
      `What to do: keep a copy of ${ctx.dataDir}, then run \`pennypost repair --data-dir ${ctx.dataDir}\` (it copies the db folder aside first) and check again. See docs/data-safety.md.`,
    );
    return 1;
  },
};
