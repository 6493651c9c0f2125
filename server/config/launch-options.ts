import { parseArgs } from 'node:util';
import { defaultDataDir } from './paths';

/**
 * Where and on what a PennyPost process runs: --port, --host and --data-dir, as `--flag value` or
 * `--flag=value`, each backed by an environment variable. Flags win over the environment, which
 * wins over the defaults (a contract: docs/deploy.md, README "Headless mode"). Read here for both
 * the headless CLI (server/cli-options.ts) and the desktop app (electron/main.ts, electron/shell.ts).
 */
export interface LaunchOptions {
  /** 0 picks a free port; undefined: the server's default (5733). */
  port?: number;
  /** Undefined: the server decides (127.0.0.1, or 0.0.0.0 with LAN access on). */
  host?: string;
  dataDir: string;
}

/** The shared flags in node:util parseArgs form (the CLI adds its own to them). */
export const LAUNCH_FLAGS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'data-dir': { type: 'string' },
} as const;

type LaunchFlag = keyof typeof LAUNCH_FLAGS;
export type LaunchFlagValues = Partial<Record<LaunchFlag, string>>;

/** The environment variable behind each flag. */
export const LAUNCH_ENV: Readonly<Record<LaunchFlag, string>> = {
  port: 'PENNYPOST_PORT',
  host: 'PENNYPOST_HOST',
  'data-dir': 'PENNYPOST_DATA_DIR',
};

/** A command line the CLI cannot run: it says so and exits 64. */
export class UsageError extends Error {}

const isPort = (value: string) => /^\d+$/.test(value) && Number(value) <= 65535;

/**
 * The launch options from the flags' values and the environment. Strict (the CLI): a port that is
 * not one, or an empty host, is a UsageError. Lenient (the desktop app, which has no terminal to
 * say it in): such a value counts as not given.
 */
export function resolveLaunchOptions(values: LaunchFlagValues, env: NodeJS.ProcessEnv, mode: 'strict' | 'lenient'): LaunchOptions {
  const portText = values.port ?? env[LAUNCH_ENV.port];
  const host = values.host ?? env[LAUNCH_ENV.host];
  if (mode === 'strict' && host !== undefined && host.trim() === '') throw new UsageError('--host must not be empty');
  let port: number | undefined;
  if (portText !== undefined && portText !== '') {
    if (isPort(portText)) port = Number(portText);
    else if (mode === 'strict') throw new UsageError(`${values.port !== undefined ? '--port' : LAUNCH_ENV.port} must be a port number 0–65535 (got "${portText}")`);
  }
  return {
    port,
    host: host?.trim() ? host : undefined,
    dataDir: values['data-dir'] || env[LAUNCH_ENV['data-dir']] || defaultDataDir(),
  };
}

/**
 * The launch options of the desktop app (`npm start -- --data-dir …` passes them through). Its
 * command line also carries Electron's and Chromium's flags and its own (--hidden): those are left
 * alone, and nothing here fails. A shared flag without a value (at the end, or followed by
 * another flag) or with an empty one counts as not given.
 */
export function desktopLaunchOptions(argv: readonly string[], env: NodeJS.ProcessEnv): LaunchOptions {
  const isLaunchFlag = (name: string): name is LaunchFlag => Object.hasOwn(LAUNCH_FLAGS, name);
  const args = argv.filter((arg, i) => !(arg.startsWith('--') && isLaunchFlag(arg.slice(2)) && (argv.at(i + 1)?.startsWith('--') ?? true)));
  const { tokens } = parseArgs({ args, options: LAUNCH_FLAGS, strict: false, allowPositionals: true, tokens: true });
  const values: LaunchFlagValues = {};
  for (const token of tokens) {
    if (token.kind === 'option' && isLaunchFlag(token.name) && typeof token.value === 'string' && token.value !== '') values[token.name] = token.value;
  }
  return resolveLaunchOptions(values, env, 'lenient');
}
