import { parseArgs } from 'node:util';
import { LAUNCH_FLAGS, resolveLaunchOptions, UsageError, type LaunchOptions } from './config/launch-options';
import { defaultDataDir } from './config/paths';
import { DATA_TOOLS } from './data-tools/registry';

/** What to do: run the server (the default), or one of the data tools (server/data-tools/). */
export type CliCommand = string;

/** The command, and where it runs (LaunchOptions: --port, --host, --data-dir, shared with the desktop app). */
export interface CliOptions extends LaunchOptions {
  command: CliCommand;
  /** A data tool's own flags and arguments. */
  toolValues: Record<string, string | boolean | undefined>;
  toolPositionals: string[];
  help: boolean;
  version: boolean;
}

/** Bad command-line usage: cli.ts prints it with the usage and exits 64. */
export { UsageError as CliUsageError };

function toolLines(): string {
  return DATA_TOOLS.map((t) => `  ${t.name.padEnd(18)}${t.summary}\n${t.usage ? t.usage.replace(/^/gm, '                    ') + '\n' : ''}`).join('');
}

export const usage = (): string => `Usage: pennypost [serve] [--port <n>] [--host <addr>] [--data-dir <dir>]
       pennypost <tool> [--data-dir <dir>] [tool flags]
       pennypost --version | --help
  (from a source checkout: npm run serve -- [flags], or node bin/pennypost.mjs <command>)

  serve             run the server until SIGTERM or SIGINT (the default)
${toolLines()}
  --port <n>        TCP port (default 5733; 0 picks a free port)      env PENNYPOST_PORT
  --host <addr>     address to bind (default 127.0.0.1, or 0.0.0.0     env PENNYPOST_HOST
                    when LAN access is on in settings)
  --data-dir <dir>  where the database, settings and files live        env PENNYPOST_DATA_DIR
                    (default: ${defaultDataDir()})
  --help            this text
  --version         print the version
`;

/** Flags win over environment variables, which win over defaults (a contract, README.md "Headless mode"; config/launch-options.ts). */
export function parseCliOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): CliOptions {
  const first = argv.find((arg) => !arg.startsWith('-'));
  const tool = DATA_TOOLS.find((t) => t.name === first);
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: {
        ...LAUNCH_FLAGS,
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
        ...(tool?.options ?? {}),
      },
      strict: true,
      allowPositionals: true,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const [command = 'serve', ...extra] = positionals;
  if (command !== 'serve' && !tool) throw new UsageError(`unknown command "${command}"`);
  const unexpected = extra.at(0);
  if (command === 'serve' && unexpected !== undefined) throw new UsageError(`unexpected argument "${unexpected}"`);
  const toolValues = Object.fromEntries(Object.keys(tool?.options ?? {}).map((name) => [name, values[name]]));
  if (tool && (values.port !== undefined || values.host !== undefined)) throw new UsageError(`${tool.name} works on a data dir; --port and --host are for serve`);
  const launch = resolveLaunchOptions(
    { port: values.port as string | undefined, host: values.host as string | undefined, 'data-dir': values['data-dir'] as string | undefined },
    env,
    'strict',
  );
  return {
    command,
    toolValues,
    toolPositionals: tool ? extra : [],
    ...launch,
    help: (values.help as boolean | undefined) ?? false,
    version: (values.version as boolean | undefined) ?? false,
  };
}
