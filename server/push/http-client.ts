import http from 'node:http';
import https from 'node:https';

/**
 * Outbound HTTP for deliveries: keep-alive agents (a push is one request to an already open
 * connection, not a TCP handshake), a hard timeout per call, a capped answer size, no
 * redirects. Errors never carry the URL: WeChat URLs hold the access token in the query.
 */
const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 128, maxFreeSockets: 64, timeout: 30_000 });
const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 128, maxFreeSockets: 64, timeout: 30_000 });

const MAX_ANSWER_BYTES = 1024 * 1024;

export class CallError extends Error {
  constructor(
    message: string,
    readonly kind: 'timeout' | 'network' | 'too-large',
  ) {
    super(message);
    this.name = 'CallError';
  }
}

export interface CallAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export interface CallOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

export function call(target: string | URL, options: CallOptions): Promise<CallAnswer> {
  let url: URL;
  try {
    url = typeof target === 'string' ? new URL(target) : target;
  } catch {
    return Promise.reject(new CallError('the address is not a valid URL', 'network'));
  }
  const secure = url.protocol === 'https:';
  if (!secure && url.protocol !== 'http:') return Promise.reject(new CallError(`unsupported protocol ${url.protocol}`, 'network'));
  const headers: Record<string, string | number> = { accept: 'application/json', ...options.headers };
  const body = options.body === undefined ? undefined : Buffer.from(options.body, 'utf8');
  if (body) headers['content-length'] = body.length;
  return new Promise<CallAnswer>((resolve, reject) => {
    let settled = false;
    const fail = (error: CallError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(error);
    };
    const request = (secure ? https : http).request(url, { method: options.method ?? 'GET', headers, agent: secure ? httpsAgent : httpAgent }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) {
          // Fail first: destroy() emits 'aborted' at once, whose handler would report a broken connection.
          fail(new CallError('the answer was larger than 1 MiB', 'too-large'));
          response.destroy();
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') });
      });
      response.on('error', () => fail(new CallError('the connection broke mid-answer', 'network')));
      response.on('aborted', () => fail(new CallError('the connection broke mid-answer', 'network')));
    });
    const timer = setTimeout(() => {
      fail(new CallError(`no answer within ${options.timeoutMs} ms`, 'timeout'));
      request.destroy();
    }, options.timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => {
      fail(new CallError(`could not connect (${error.code ?? 'network error'})`, 'network'));
    });
    if (body) request.end(body);
    else request.end();
  });
}
