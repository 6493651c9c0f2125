import os from 'node:os';
import type { KeyProtector } from '../server/config/secrets';
import type { RunningServer, ServerOptions } from '../server/server';
import { DEFAULT_PORT } from '../server/server';

export interface ServerHostOptions {
  dataDir: string;
  rendererDir: string;
  /** PENNYPOST_PORT: a port the user chose; no fallback when it is taken. */
  port?: number;
  /** The port tried first otherwise (5733). */
  defaultPort?: number;
  /** PENNYPOST_HOST; default: 127.0.0.1, or 0.0.0.0 with LAN access on (decided by the server). */
  host?: string;
  /** Asked at each start (Electron's safeStorage works only after 'ready'). */
  keyProtector(): KeyProtector | null;
  startServer(options: ServerOptions): Promise<RunningServer>;
  onWarning?(message: string): void;
}

const isWildcard = (host: string) => host === '0.0.0.0' || host === '::';

/** The address the window loads: loopback even when the server listens on every interface. */
export function windowUrlOf(server: Pick<RunningServer, 'host' | 'port' | 'url'>): string {
  if (isWildcard(server.host)) return `http://127.0.0.1:${server.port}`;
  return server.url;
}

/** Webhook addresses LAN devices can use (IPv4, non-internal interfaces) when bound to all. */
export function lanAddresses(server: Pick<RunningServer, 'host' | 'port'>, interfaces: ReturnType<typeof os.networkInterfaces> = os.networkInterfaces()): string[] {
  if (!isWildcard(server.host)) return [];
  const out: string[] = [];
  for (const list of Object.values(interfaces)) {
    for (const info of list ?? []) {
      if (info.internal || info.family !== 'IPv4' || info.address.startsWith('169.254.')) continue;
      out.push(`http://${info.address}:${server.port}`);
    }
  }
  return out;
}

/**
 * Runs PennyPost's server inside the shell: start (on the configured port, 5733 by default, so
 * webhook URLs on phones and scripts stay valid; a free port when it is taken), restart (LAN
 * access on/off needs a new socket) and stop — one at a time, in the order asked.
 */
export class ServerHost {
  private server: RunningServer | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private lastPort: number | undefined;

  constructor(private readonly options: ServerHostOptions) {}

  get current(): RunningServer | null {
    return this.server;
  }

  start(): Promise<RunningServer> {
    return this.enqueue(() => this.doStart());
  }

  /** Closes the server (database included) and starts it again on the same port. */
  restart(): Promise<RunningServer> {
    return this.enqueue(async () => {
      await this.doStop();
      return this.doStart();
    });
  }

  /** Stop accepting, finish requests in flight, stop domains, close the database. Idempotent. */
  stop(): Promise<void> {
    return this.enqueue(() => this.doStop());
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async doStart(): Promise<RunningServer> {
    if (this.server) return this.server;
    const base: ServerOptions = {
      dataDir: this.options.dataDir,
      rendererDir: this.options.rendererDir,
      host: this.options.host,
      keyProtector: this.options.keyProtector(),
      port: this.options.port ?? this.lastPort ?? this.options.defaultPort ?? DEFAULT_PORT,
    };
    let server: RunningServer;
    try {
      server = await this.options.startServer(base);
    } catch (error) {
      if ((error as { code?: string }).code !== 'EADDRINUSE' || this.options.port !== undefined) throw error;
      this.options.onWarning?.(`port ${String(base.port)} is in use; PennyPost picked a free port (webhook URLs using ${String(base.port)} will not reach it)`);
      server = await this.options.startServer({ ...base, port: 0 });
    }
    this.server = server;
    this.lastPort = server.port;
    return server;
  }

  private async doStop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await server.close();
    this.server = null;
  }
}
