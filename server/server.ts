import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import path from 'node:path';
import express, { type NextFunction, type Request, type Response } from 'express';
import { createApiRouter } from './api/router';
import { startApp, type AppOptions } from './app-start';
import type { ActionCaller } from './api/call-action';
import { PACKAGE_ROOT, packageVersion } from './app-info/package-root';
import type { AppContext } from './app-context';
import { recordRunVersion } from './backup/upgrade';
import { envelope } from './http/envelope';
import { apiCors } from './http/cors';
import { networkPolicy } from './http/network-policy';
import { phoneAppRoutes } from './http/phone-app';
import { staticCacheControl } from './http/static-cache';
import { securityHeaders } from './http/security-headers';
import { describeError } from './lib/logger';

export interface ServerOptions extends Omit<AppOptions, 'memoryLevel'> {
  /** Default 5733; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1, or 0.0.0.0 when settings.network.lan is on. */
  host?: string;
  /** Folder of the built UI served at / (default: dist/renderer/, made by `npm run build`). */
  rendererDir?: string;
}

export interface RunningServer {
  readonly app: AppContext;
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly http: Server;
  /** The action pipeline behind /api, without the wire (the in-process test tier calls it). */
  readonly call: ActionCaller;
  /** Stop accepting, finish in-flight requests, stop domains, close the database. Idempotent. */
  close(): Promise<void>;
}

export const DEFAULT_PORT = 5733;
export const DEFAULT_HOST = '127.0.0.1';
const RENDERER_DIR = path.join(PACKAGE_ROOT, 'dist', 'renderer');
const PHONE_DIR = path.join(PACKAGE_ROOT, 'dist', 'phone');
/** Paths that belong to the server, never to the UI's client-side routes. */
const NOT_UI = /^\/(api|healthz|phone)(\/|$)|^\/(send|s|m|files|events)\//;

/**
 * Requests Node refuses before any route sees them (a URL or headers over 16 KB, a malformed
 * request line) get the envelope too, instead of a bare status line.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, reason, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'The request line or headers are larger than 16 KB; send long text in a POST body.']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'HPE_HEADER_TIMEOUT'
        ? [408, 'Request Timeout', 'The request took too long to arrive.']
        : [400, 'Bad Request', 'Malformed HTTP request.'];
  const body = JSON.stringify(envelope(status, message, null));
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
}

function displayHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Boots PennyPost: settings, database with every domain's collections, domains, HTTP routes, and
 * the listening socket. Used by the headless CLI, the Electron shell and the tests alike.
 */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const running = await startApp(options);
  const { app, domains, gate } = running;
  const { dataDir, settings, log } = app;
  let httpServer: Server | undefined;
  try {
    const web = express();
    web.disable('x-powered-by');
    web.set('trust proxy', false);
    web.set('etag', false);
    web.use(networkPolicy(() => settings.get()));
    web.use(securityHeaders());
    web.use(gate.middleware());
    web.get('/healthz', (_req, res) => {
      res.set('Cache-Control', 'no-store').json({ status: 'ok' });
    });
    web.use(
      '/api',
      apiCors(() => settings.get()),
    );
    web.use(createApiRouter({ app, call: running.call }));
    const routes = express.Router();
    for (const domain of domains) domain.routes?.(routes, app);
    web.use(routes);
    web.use(phoneAppRoutes(PHONE_DIR));
    const rendererDir = options.rendererDir ?? RENDERER_DIR;
    web.use(
      express.static(rendererDir, {
        index: 'index.html',
        dotfiles: 'ignore',
        fallthrough: true,
        redirect: false, // /assets is a screen of the app, not a folder to redirect to
        // Vite names bundles by content hash (in _app/); renderer/public's files keep their names (static-cache.ts).
        setHeaders: (res, filePath) => res.setHeader('Cache-Control', staticCacheControl(filePath, '_app')),
      }),
    );
    // SPA fallback: the UI's own routes (/records, /settings…) get index.html.
    web.use((req: Request, res: Response, next: NextFunction) => {
      if ((req.method !== 'GET' && req.method !== 'HEAD') || NOT_UI.test(req.path) || /\.[A-Za-z0-9]+$/.test(req.path)) {
        next();
        return;
      }
      res.set('Cache-Control', 'no-cache').sendFile(path.join(rendererDir, 'index.html'), (error?: Error) => {
        if (error && !res.headersSent) res.status(404).type('text/plain').send('The UI is not built: run `npm run build`.\n');
      });
    });
    web.use((req: Request, res: Response) => {
      res.status(404).type('text/plain').send(`Not found: ${req.method} ${req.path}\n`);
    });
    // Four parameters: Express recognises an error handler by its arity, so `_next` stays.
    web.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
      log.error('request failed', { path: req.path, ...describeError(error) });
      if (res.headersSent) return;
      if (req.path === '/api') res.status(500).json(envelope(500, 'Internal error.', null));
      else res.status(500).type('text/plain').send('Internal error.\n');
    });

    const host = options.host ?? (settings.get().network.lan ? '0.0.0.0' : DEFAULT_HOST);
    const port = options.port ?? DEFAULT_PORT;
    httpServer = createHttpServer({ requestTimeout: 60_000, headersTimeout: 20_000, keepAliveTimeout: 5_000 }, web);
    const server = httpServer;
    server.on('clientError', answerClientError);
    await new Promise<void>((resolve, reject) => {
      const onError = (error: Error) => {
        server.off('listening', onListening);
        reject(error);
      };
      const onListening = () => {
        server.off('error', onError);
        resolve();
      };
      server.once('error', onError);
      server.once('listening', onListening);
      server.listen(port, host);
    });
    const address = server.address() as AddressInfo;
    const url = `http://${displayHost(host)}:${address.port}`;
    app.listening = { host, port: address.port, url };
    recordRunVersion(dataDir, packageVersion());

    let closing: Promise<void> | undefined;
    return {
      app,
      url,
      host,
      port: address.port,
      http: server,
      call: running.call,
      close() {
        closing ??= (async () => {
          await new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeIdleConnections();
          });
          await running.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    const listening = httpServer;
    if (listening?.listening) await new Promise<void>((resolve) => listening.close(() => resolve()));
    await running.close().catch(() => undefined);
    throw error;
  }
}
