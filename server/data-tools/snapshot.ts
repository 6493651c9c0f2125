import { mkdirSync } from 'node:fs';
import { listSnapshots, removeLeftovers, writeSnapshot } from '../backup/snapshots';
import { finishInterruptedRestore } from '../backup/restore';
import type { DataTool } from './tool';
import { describe, InUse, openLiveLevel, rotate } from './backup-common';

/** `pennypost snapshot [--list] --data-dir D`: a verified snapshot of a stopped data dir (docs/data-safety.md). */
export const snapshotTool: DataTool = {
  name: 'snapshot',
  summary: 'Take a verified snapshot of a stopped data dir (or --list them).',
  options: { list: { type: 'boolean' } },
  async run(ctx) {
    if (ctx.values.list) {
      const list = listSnapshots(ctx.dataDir);
      if (list.length === 0) ctx.out(`No snapshots in ${ctx.dataDir}.`);
      for (const s of list) {
        ctx.out(
          `${s.id}  ${new Date(s.createdAt).toISOString()}  ${s.reason.padEnd(7)}  ${s.status === 'ok' ? `${String(s.records).padStart(8)} records  ${describe(s.bytes)}` : `FAILED: ${s.error ?? ''}`}`,
        );
      }
      return 0;
    }
    try {
      const interrupted = await finishInterruptedRestore(ctx.dataDir);
      if (interrupted) ctx.err(interrupted);
      const level = await openLiveLevel(ctx.dataDir);
      try {
        mkdirSync(ctx.dataDir, { recursive: true, mode: 0o700 });
        await removeLeftovers(ctx.dataDir);
        const m = await writeSnapshot({ dataDir: ctx.dataDir, source: level, now: Date.now(), reason: 'manual' });
        ctx.out(`Snapshot ${m.id}: ${m.records} records, ${m.keys} keys, ${m.files} files, ${describe(m.bytes)}, verified.`);
        const removed = await rotate(ctx.dataDir, [m.id]);
        if (removed.length > 0) ctx.out(`Rotation removed ${removed.length} older snapshot(s): ${removed.join(', ')}`);
      } finally {
        await level.close();
      }
      return 0;
    } catch (error) {
      ctx.err(`pennypost snapshot: ${(error as Error).message}`);
      return error instanceof InUse ? 2 : 1;
    }
  },
};
