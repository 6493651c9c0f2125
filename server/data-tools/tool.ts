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
