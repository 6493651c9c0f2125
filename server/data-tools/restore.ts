import { readManifest, removeLeftovers, writeSnapshot } from '../backup/snapshots';
import { finishInterruptedRestore, finishRestore, prepareRestore, swapInRestore } from '../backup/restore';
import type { DataTool } from './tool';
import { InUse, openLiveLevel, rotate } from './backup-common';

/** `pennypost restore --data-dir D <id>`: puts a stopped data dir back as it was in snapshot <id>. */
export const restoreTool: DataTool = {
  name: 'restore',
  summary: 'Put a stopped data dir back as it was in a snapshot (a snapshot of the current state is taken first).',
  usage: '<id>    a snapshot id (pennypost snapshot --list)',
  async run(ctx) {
    const id = ctx.positionals[0];
    if (!id || ctx.positionals.length > 1) {
      ctx.err('usage: pennypost restore --data-dir <dir> <snapshot id>   (ids: pennypost snapshot --list)');
      return 1;
    }
    const manifest = readManifest(ctx.dataDir, id);
    if (!manifest) {
      ctx.err(`pennypost restore: ${ctx.dataDir} has no snapshot "${id}" (pennypost snapshot --list shows them).`);
      return 1;
    }
    try {
      const interrupted = await finishInterruptedRestore(ctx.dataDir);
      if (interrupted) ctx.err(interrupted);
      await removeLeftovers(ctx.dataDir);
      // Opening the live database also proves no server holds the data dir.
      const level = await openLiveLevel(ctx.dataDir);
      let before;
      try {
        before = await writeSnapshot({ dataDir: ctx.dataDir, source: level, now: Date.now(), reason: 'restore' });
        ctx.out(`Snapshot of the current state: ${before.id} (${before.records} records).`);
        await prepareRestore(ctx.dataDir, manifest);
      } finally {
        await level.close();
      }
      await swapInRestore(ctx.dataDir, manifest);
      await finishRestore(ctx.dataDir);
      ctx.out(`Restored snapshot ${id} (${manifest.records} records, ${new Date(manifest.createdAt).toISOString()}).`);
      await rotate(ctx.dataDir, [id, before.id]);
      return 0;
    } catch (error) {
      ctx.err(`pennypost restore: ${(error as Error).message}`);
      return error instanceof InUse ? 2 : 1;
    }
  },
};
