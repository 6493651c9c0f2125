import { parseArgs } from 'node:util';
import { defaultDataDir } from './config/paths';

/** What to do: run the server (the default), or print the version or the usage. */
export type CliCommand = 'serve';

export interface CliOptions {
  command: CliCommand;
  port?: number;
  host?: string;
  dataDir: string;
  help: boolean;
  version: boolean;
}

export class CliUsageError extends Error {}

export const USAGE = `Usage: pennypost [serve] [--port <n>] [--host <addr>] [--data-dir <dir>]
       pennypost --version | --help
  (from a source checkout: npm run serve -- [flags])

  serve             run the server until SIGTERM or SIGINT (the default)
  --port <n>        TCP port (default 5733; 0 picks a free port)      env PENNYPOST_PORT
  --host <addr>     address to bind (default 127.0.0.1, or 0.0.0.0     env PENNYPOST_HOST
                    when LAN access is on in settings)
  --data-dir <dir>  where the database, settings and files live        env PENNYPOST_DATA_DIR
                    (default: ${defaultDataDir()})
  --help            this text
  --version         print the version
`;

function parsePort(value: string, source: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new CliUsageError(`${source} must be a port number 0–65535 (got "${value}")`);
  return Number(value);
}

/** Flags win over environment variables, which win over defaults (DESIGN.md, contract). */
export function parseCliOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): CliOptions {
  let values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'data-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: true,
    }));
  } catch (error) {
    throw new CliUsageError((error as Error).message);
  }
  const [command = 'serve', ...extra] = positionals;
  if (command !== 'serve') throw new CliUsageError(`unknown command "${command}"`);
  if (extra.length > 0) throw new CliUsageError(`unexpected argument "${extra[0]}"`);
  const portText = values.port ?? env.PENNYPOST_PORT;
  const host = values.host ?? env.PENNYPOST_HOST;
  if (host !== undefined && host.trim() === '') throw new CliUsageError('--host must not be empty');
  return {
    command,
    port: portText === undefined || portText === '' ? undefined : parsePort(portText, values.port !== undefined ? '--port' : 'PENNYPOST_PORT'),
    host: host || undefined,
    dataDir: values['data-dir'] || env.PENNYPOST_DATA_DIR || defaultDataDir(),
    help: values.help ?? false,
    version: values.version ?? false,
  };
}
