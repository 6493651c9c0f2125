import type { DataTool } from './tool';

/** The `pennypost` data tools, one entry each. Loaded only when a tool runs, so `pennypost serve` does not pay for them. */
export const DATA_TOOLS: Array<{ name: string; summary: string; usage?: string; options?: DataTool['options']; load: () => Promise<DataTool> }> = [
  {
    name: 'check',
    summary: 'verify a stopped data dir (documents, indexes, balances); exit 0 clean, 1 problems, 2 in use',
    load: async () => (await import('./check')).checkTool,
  },
  {
    name: 'repair',
    summary: 'recover a damaged database: copies db/ to db.before-repair-<time>/ first, reports what changed',
    load: async () => (await import('./repair')).repairTool,
  },
  {
    name: 'snapshot',
    summary: 'take a verified snapshot of a stopped data dir into <data dir>/snapshots/ (--list: show them); exit 2 in use',
    usage: '--list    list the snapshots instead',
    options: { list: { type: 'boolean' } },
    load: async () => (await import('./snapshot')).snapshotTool,
  },
  {
    name: 'restore',
    summary: 'put a stopped data dir back as it was in snapshot <id> (snapshots the current state first); exit 2 in use',
    usage: '<id>      a snapshot id from `pennypost snapshot --list`',
    load: async () => (await import('./restore')).restoreTool,
  },
  {
    name: 'phone-app',
    summary: 'write the phone app as static files into <folder>, for any HTTPS host (docs/phone.md)',
    usage: '<folder>  a new or empty folder',
    load: async () => (await import('./phone-app')).phoneAppTool,
  },
];
