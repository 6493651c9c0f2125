import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A misbehaving network between PennyPost and an upstream fake (e.g. FakeWechatMp): forwards
 * requests untouched, except where a fault is programmed — per WeChat recipient (the `touser` of
 * the JSON body) or for the token endpoints. Listens on 127.0.0.1 only.
 *
 * - `drop`: the connection is closed without an answer
 * - `drop-mid`: headers and half a JSON body, then the connection is closed
 * - `garbage`: HTTP 200 with a body that is not JSON
 * - `truncated`: HTTP 200 with JSON cut in the middle
 * - `html`: HTTP 200 with an HTML error page (a captive portal, a proxy)
 * - `huge`: HTTP 200 with 2 MiB of JSON whitespace (over the client's answer cap)
 * - `status500` / `status502`: an HTTP error with an HTML body
 * - `stall`: never answers (the socket stays open until the proxy closes)
 */
export type Fault = 'drop' | 'drop-mid' | 'garbage' | 'truncated' | 'html' | 'huge' | 'status500' | 'status502' | 'stall';

export class ChaosProxy {
  private server!: Server;
  private readonly sockets = new Set<Socket>();
  private readonly queued = new Map<string, Fault[]>();
  private readonly always = new Map<string, Fault>();
  readonly applied: Array<{ key: string; fault: Fault }> = [];
  url = '';

  constructor(private readonly target: string) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Faults for the next calls concerning `key` (an openid, or 'token'), in order. */
  program(key: string, ...faults: Fault[]): void {
    this.queued.set(key, [...(this.queued.get(key) ?? []), ...faults]);
  }

  /** A fault for every call concerning `key` (after the programmed ones). */
  setAlways(key: string, fault: Fault | null): void {
    if (fault) this.always.set(key, fault);
    else this.always.delete(key);
  }

  reset(): void {
    this.queued.clear();
    this.always.clear();
    this.applied.length = 0;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const key = this.keyOf(req.url ?? '/', body);
      const fault = this.queued.get(key)?.shift() ?? this.always.get(key);
      if (fault) {
        this.applied.push({ key, fault });
        this.inflict(fault, res);
        return;
      }
      this.forward(req, body, res);
    });
  }

  private keyOf(url: string, body: Buffer): string {
    if (url.startsWith('/cgi-bin/token') || url.startsWith('/cgi-bin/stable_token')) return 'token';
    try {
      const parsed = JSON.parse(body.toString('utf8')) as { touser?: unknown };
      if (typeof parsed.touser === 'string') return parsed.touser;
    } catch {
      // not JSON
    }
    return '';
  }

  private inflict(fault: Fault, res: ServerResponse): void {
    const socket = res.socket;
    switch (fault) {
      case 'drop':
        socket?.destroy();
        return;
      case 'drop-mid':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '64' });
        res.write('{"errcode":0,"errmsg":"o');
        setTimeout(() => socket?.destroy(), 20);
        return;
      case 'garbage':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('\u0000\u00ff not json at all \ufffd');
        return;
      case 'truncated':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"errcode":0,"errmsg":"ok","msgid":1234');
        return;
      case 'html':
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html><body><h1>Network login required</h1></body></html>');
        return;
      case 'huge':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(' '.repeat(2 * 1024 * 1024) + '{"errcode":0}');
        return;
      case 'status500':
      case 'status502': {
        const status = fault === 'status500' ? 500 : 502;
        res.writeHead(status, { 'content-type': 'text/html' });
        res.end(`<html><body>${status}</body></html>`);
        return;
      }
      case 'stall':
        return; // never answer; the socket is destroyed by the client's timeout or by close()
    }
  }

  private forward(req: IncomingMessage, body: Buffer, res: ServerResponse): void {
    const target = new URL(req.url ?? '/', this.target);
    const upstream = httpRequest(target, { method: req.method, headers: { ...req.headers, host: target.host, 'content-length': String(body.length) } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.socket?.destroy());
    upstream.end(body);
  }
}
