import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PHONE_CSP, phoneAppRoutes } from './phone-app';

/** /phone/ serves the built phone app (dist/phone) with its own CSP and cache rules. */
let dir: string;
let server: Server;
let base: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'pennypost-phone-app-'));
  mkdirSync(path.join(dir, 'app'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>PennyPost</title>');
  writeFileSync(path.join(dir, 'sw.js'), 'self.addEventListener("fetch", () => {});');
  writeFileSync(path.join(dir, 'app', 'index-abc.js'), 'console.log(1)');
  const web = express();
  web.use(phoneAppRoutes(dir));
  web.use((_req, res) => res.status(418).send('fell through'));
  server = web.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('the phone app route', () => {
  it('serves the page with a CSP that lets it reach an HTTPS CouchDB and nothing script-like from elsewhere', async () => {
    const page = await fetch(`${base}/phone/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('PennyPost');
    expect(page.headers.get('content-security-policy')).toBe(PHONE_CSP);
    expect(PHONE_CSP).toContain("script-src 'self'");
    expect(PHONE_CSP).toMatch(/connect-src 'self' https: /);
    expect(PHONE_CSP).not.toContain('unsafe-eval');
    expect(page.headers.get('cache-control')).toBe('no-cache');
  });

  it('keeps hashed bundles for good and checks the service worker on every load', async () => {
    expect((await fetch(`${base}/phone/app/index-abc.js`)).headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${base}/phone/sw.js`)).headers.get('cache-control')).toBe('no-cache');
  });

  it('sends /phone to /phone/ (the app’s paths are relative), keeping the query', async () => {
    const answer = await fetch(`${base}/phone?x=1`, { redirect: 'manual' });
    expect(answer.status).toBe(301);
    expect(answer.headers.get('location')).toBe('/phone/?x=1');
  });

  it('answers 404 for a file it does not have, never the desktop UI', async () => {
    const missing = await fetch(`${base}/phone/nothing.js`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('/phone/nothing.js');
    expect((await fetch(`${base}/elsewhere`)).status).toBe(418);
  });
});
