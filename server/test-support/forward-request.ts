import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';

export interface ForwardOptions {
  /** The request body, when it was already read (else the request is streamed on as it comes). */
  body?: Buffer;
  /** Told the status of the target's answer before it is passed back. */
  onAnswer?: (status: number) => void;
}

/**
 * Passes one request on to `target` as it came (method, path, headers — Host included) and the
 * answer back; a 502 when the target cannot be reached. The pass-through proxies of the tests use it.
 */
export function forwardRequest(req: IncomingMessage, res: ServerResponse, target: URL, options: ForwardOptions = {}): void {
  const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
    options.onAnswer?.(answer.statusCode ?? 0);
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  res.on('close', () => upstream.destroy());
  if (options.body) upstream.end(options.body);
  else req.pipe(upstream);
}
