import http from 'node:http';
import https from 'node:https';
import { OutboundRefusal, portOfUrl, type OutboundScope } from './outbound-policy';

/**
 * One outbound HTTP request of PennyPost's own (push deliveries, CouchDB): through the scope's
 * keep-alive agents and address checks (./outbound-policy.ts), with a hard timeout over the whole
 * exchange, an answer read up to `maxBytes` and no further (a server streaming without end costs
 * that much memory at most), and no redirects. Errors never carry the URL: WeChat's hold the access
 * token in the query.
 */

export class OutboundCallError extends Error {
  /** The policy's refusal, for `refused`. */
  get refusal(): OutboundRefusal | undefined {
    return this.detail instanceof OutboundRefusal ? this.detail : undefined;
  }

  /** The system's error code of a `network` failure (ECONNREFUSED, ENOTFOUND…), when there is one. */
  get code(): string | undefined {
    return typeof this.detail === 'string' ? this.detail : undefined;
  }

  constructor(
    message: string,
    /** `refused`: the outbound policy did not let the request go (the message says why). */
    readonly kind: 'timeout' | 'network' | 'too-large' | 'refused',
    /** `refused`: the policy's refusal; `network`: the system's error code (ECONNREFUSED…), when there is one. */
    private readonly detail?: OutboundRefusal | string,
  ) {
    super(message);
    this.name = 'OutboundCallError';
  }
}

export interface OutboundAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface OutboundRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs: number;
  /** The largest answer read; a longer one ends the request with a `too-large` error. */
  maxBytes: number;
}

/** "1 MiB", "64 MiB", "512 KiB": a size limit in words. */
export function sizeInWords(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

export function outboundRequest(scope: OutboundScope, target: string | URL, options: OutboundRequestOptions): Promise<OutboundAnswer> {
  let url: URL;
  try {
    url = typeof target === 'string' ? new URL(target) : target;
  } catch {
    return Promise.reject(new OutboundCallError('the address is not a valid URL', 'network'));
  }
  const secure = url.protocol === 'https:';
  if (!secure && url.protocol !== 'http:') return Promise.reject(new OutboundCallError(`unsupported protocol ${url.protocol}`, 'network'));
  const port = portOfUrl(url);
  // Addresses written in the URL (no lookup happens for them) and this server's names.
  const refusal = scope.refusalForName(url.hostname, port);
  if (refusal) return Promise.reject(new OutboundCallError(refusal.message, 'refused', refusal));
  const headers: Record<string, string | number> = { ...options.headers };
  const body = options.body === undefined ? undefined : typeof options.body === 'string' ? Buffer.from(options.body, 'utf8') : options.body;
  if (body) headers['content-length'] = body.length;
  return new Promise<OutboundAnswer>((resolve, reject) => {
    let settled = false;
    const fail = (error: OutboundCallError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(error);
    };
    const request = (secure ? https : http).request(
      url,
      { method: options.method ?? 'GET', headers, agent: secure ? scope.agents.https : scope.agents.http, lookup: scope.lookupFor(port) },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) {
            // Fail first: destroy() emits 'aborted' at once, whose handler would report a broken connection.
            fail(new OutboundCallError(`the answer was larger than ${sizeInWords(options.maxBytes)}`, 'too-large'));
            chunks.length = 0;
            response.destroy();
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) });
        });
        response.on('error', () => fail(new OutboundCallError('the connection broke mid-answer', 'network')));
        response.on('aborted', () => fail(new OutboundCallError('the connection broke mid-answer', 'network')));
      },
    );
    const timer = setTimeout(() => {
      fail(new OutboundCallError(`no answer within ${options.timeoutMs} ms`, 'timeout'));
      request.destroy();
    }, options.timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (error instanceof OutboundRefusal) fail(new OutboundCallError(error.message, 'refused', error));
      else fail(new OutboundCallError(`could not connect (${error.code ?? 'network error'})`, 'network', error.code));
    });
    if (body) request.end(body);
    else request.end();
  });
}
