import { packageVersion } from './app-info/package-root';
import { CliUsageError, parseCliOptions, usage } from './cli-options';
import { DATA_TOOLS } from './data-tools/registry';
import { SettingsError } from './config/settings';
import { DataDirLockedError } from './db/database';
import { shouldWatchParent, watchParent } from './lib/parent-watch';
import { DEFAULT_HOST, DEFAULT_PORT, startServer, type RunningServer } from './server';

/**
 * Headless PennyPost (`pennypost serve`, `npm run serve`, and `npm start` where the desktop app
 * cannot run). Exit codes:
 *   0 stopped by SIGTERM/SIGINT after a clean shutdown
 *   1 could not start (port in use, bad settings, …) or shutdown failed
 *   2 the data dir is in use by another PennyPost process
 *   64 bad command-line usage
 */
async function main(): Promise<number> {
  let options;
  try {
    options = parseCliOptions(process.argv.slice(2));
  } catch (error) {
    if (error instanceof CliUsageError) {
      process.stderr.write(`${error.message}\n\n${usage()}`);
      return 64;
    }
    throw error;
  }
  if (options.help) {
    process.stdout.write(usage());
    return 0;
  }
  if (options.version) {
    process.stdout.write(`PennyPost ${packageVersion()}\n`);
    return 0;
  }

  const tool = DATA_TOOLS.find((t) => t.name === options.command);
  if (tool) {
    const implementation = await tool.load();
    return implementation.run({
      dataDir: options.dataDir,
      values: options.toolValues,
      positionals: options.toolPositionals,
      out: (line) => process.stdout.write(`${line}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
    });
  }

  let server: RunningServer;
  try {
    server = await startServer({ dataDir: options.dataDir, port: options.port, host: options.host });
  } catch (error) {
    if (error instanceof DataDirLockedError) {
      process.stderr.write(`PennyPost: ${error.message}\n`);
      return 2;
    }
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE') {
      process.stderr.write(`PennyPost: port ${options.port ?? DEFAULT_PORT} is already in use. Pick another with --port (0 picks a free one).\n`);
      return 1;
    }
    if (code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      process.stderr.write(`PennyPost: cannot listen on ${options.host ?? DEFAULT_HOST}:${options.port ?? DEFAULT_PORT} (${code}).\n`);
      return 1;
    }
    if (error instanceof SettingsError) {
      process.stderr.write(`PennyPost: invalid settings: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(`PennyPost could not start: ${(error as Error).message}\n`);
    return 1;
  }

  process.stdout.write(`PennyPost listening on ${server.url}\n`);

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      server.app.log.info('shutting down', { signal });
      const force = setTimeout(() => {
        process.stderr.write('PennyPost: shutdown took longer than 15 s; exiting.\n');
        resolve(1);
      }, 15_000);
      force.unref();
      server
        .close()
        .then(() => resolve(0))
        .catch((error: unknown) => {
          process.stderr.write(`PennyPost: shutdown failed: ${(error as Error).message}\n`);
          resolve(1);
        })
        .finally(() => clearTimeout(force));
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
    if (shouldWatchParent()) watchParent(() => stop('parent process exited'));
  });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`PennyPost crashed: ${(error as Error).stack ?? (error as Error).message}\n`);
    process.exit(1);
  },
);
