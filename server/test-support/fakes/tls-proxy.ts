import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server } from 'node:https';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import { forwardRequest } from '../forward-request';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** A self-signed certificate for `*.push.ft07.com` (tls-proxy-test-cert.md). */
export const TLS_PROXY_CERT = readFileSync(path.join(HERE, 'tls-proxy-test-cert.pem'));
const KEY = readFileSync(path.join(HERE, 'tls-proxy-test-key.pem'));

export interface TlsProxy {
  port: number;
  close(): Promise<void>;
}

/**
 * The TLS reverse proxy of docs/push.md, for a client whose host is hard-coded: it answers HTTPS
 * for the certificate's names and passes each request on to `target` (PennyPost) as it came,
 * Host header included.
 */
export async function startTlsProxy(target: string): Promise<TlsProxy> {
  const to = new URL(target);
  const server: Server = createHttpsServer({ cert: TLS_PROXY_CERT, key: KEY }, (req, res) => {
    forwardRequest(req, res, to);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Makes Node's default HTTPS agent (what fetch libraries built on `https.request` use) reach
 * `hostSuffix` names at the proxy — what DNS and the proxy listening on port 443 do for a real
 * client — trusting the proxy's test certificate. Returns the undo.
 */
export function routeHttpsTo(hostSuffix: string, proxy: TlsProxy): () => void {
  const original = https.globalAgent;
  class ToProxy extends https.Agent {
    override createConnection(options: https.RequestOptions, callback?: (err: Error | null, stream: Duplex) => void): Duplex {
      const host = options.servername ?? options.hostname ?? options.host ?? '';
      if (!host.endsWith(hostSuffix)) throw new Error(`unexpected HTTPS request to ${host}`);
      const socket = tls.connect({ host: '127.0.0.1', port: proxy.port, servername: host, ca: TLS_PROXY_CERT });
      if (callback) socket.once('secureConnect', () => callback(null, socket));
      return socket;
    }
  }
  https.globalAgent = new ToProxy({ keepAlive: false });
  return () => {
    https.globalAgent = original;
  };
}
