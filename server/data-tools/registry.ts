import type { ParseArgsConfig } from 'node:util';

/**
 * The `pennypost` data tools: subcommands that work on a data dir while no server uses it
 * (`pennypost check`, `pennypost repair`, …). Each is one entry here; `server/cli.ts` parses the
 * common flags (--data-dir, --help), the tool's own flags from `options`, and runs it.
 */
export interface DataToolContext {
  dataDir: string;
  /** The tool's own flags, parsed by node:util parseArgs from `options`. */
  values: Record<string, string | boolean | undefined>;
  /** Positional arguments after the tool's name. */
  positionals: string[];
  /** Report lines for the person (stdout). */
  out(line: string): void;
  /** Problems and progress (stderr). */
  err(line: string): void;
}

export interface DataTool {
  name: string;
  /** One line for `pennypost --help`. */
  summary: string;
  /** Extra usage lines (flags and arguments), shown under the summary. */
  usage?: string;
  options?: NonNullable<ParseArgsConfig['options']>;
  /** Resolves to the exit code: 0 ok, 1 problems found or failed, 2 data dir in use. */
  run(ctx: DataToolContext): Promise<number>;
}

/** Loaded only when a tool runs, so `pennypost serve` does not pay for them. */
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
];
