import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, describe, expect, it } from 'vitest';
import { helmetMiddleware, helmetPlan, securityHeaders } from './security-headers';

const servers: Array<{ close(): void }> = [];
afterAll(() => servers.forEach((s) => s.close()));

async function headersOf(middleware: express.RequestHandler): Promise<Record<string, string>> {
  const app = express();
  app.use(middleware);
  app.get('/x', (_req, res) => {
    res.json({ ok: true });
  });
  const server = await new Promise<ReturnType<typeof app.listen>>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  servers.push(server);
  const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/x`);
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (name !== 'date') headers[name] = value;
  });
  return headers;
}

describe('security headers', () => {
  it('answers exactly what helmet itself answers (the precomputed plan is not stale)', async () => {
    const viaHelmet = await headersOf(helmetMiddleware());
    const precomputed = await headersOf(securityHeaders());
    expect(precomputed).toEqual(viaHelmet);
    expect(precomputed['content-security-policy']).toContain("default-src 'self'");
    expect(precomputed['x-frame-options']).toBe('DENY');
    expect(precomputed['x-powered-by']).toBeUndefined();
  });

  it('the plan sets the security headers and removes X-Powered-By', () => {
    const plan = helmetPlan();
    expect(plan.set.map(([name]) => name)).toEqual(
      expect.arrayContaining([
        'Content-Security-Policy',
        'Cross-Origin-Opener-Policy',
        'Cross-Origin-Resource-Policy',
        'Referrer-Policy',
        'X-Content-Type-Options',
        'X-Frame-Options',
      ]),
    );
    expect(plan.remove).toEqual(['X-Powered-By']);
  });
});
