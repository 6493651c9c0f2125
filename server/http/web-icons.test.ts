import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeSettings } from '../config/settings';
import { startTestServer, type TestServer } from '../test-support/test-server';
import { callMiddleware } from '../test-support/network-policy';
import { networkPolicy } from './network-policy';

/**
 * The favicon, app icons and web app manifest (renderer/public/, copied by Vite to the root of
 * dist/renderer/) as the server serves them. A UI folder of its own, made of the committed files:
 * the real dist/renderer is built after the unit tests run.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const publicDir = path.join(root, 'renderer', 'public');
const indexHtml = readFileSync(path.join(root, 'renderer', 'index.html'), 'utf8');

/** Width and height from a PNG's IHDR chunk (the first chunk, right after the 8-byte signature). */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  expect(bytes.toString('ascii', 12, 16)).toBe('IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** The images of an ICO file: directory entries, each checked against the PNG it points to. */
function icoImages(bytes: Buffer): Array<{ width: number; height: number; png: { width: number; height: number } }> {
  expect([...bytes.subarray(0, 4)]).toEqual([0, 0, 1, 0]); // reserved 0, type 1 (icon)
  const count = bytes.readUInt16LE(4);
  return Array.from({ length: count }, (_, i) => {
    const entry = 6 + 16 * i;
    const [width, height] = [bytes[entry] || 256, bytes[entry + 1] || 256];
    const length = bytes.readUInt32LE(entry + 8);
    const offset = bytes.readUInt32LE(entry + 12);
    expect(offset + length).toBeLessThanOrEqual(bytes.length);
    return { width, height, png: pngSize(bytes.subarray(offset, offset + length)) };
  });
}

async function get(t: TestServer, pathname: string) {
  const res = await t.fetch(pathname);
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('favicon, app icons and web app manifest', () => {
  let t: TestServer;
  let rendererDir: string;
  beforeAll(async () => {
    rendererDir = mkdtempSync(path.join(os.tmpdir(), 'pennypost-ui-'));
    cpSync(publicDir, rendererDir, { recursive: true });
    cpSync(path.join(root, 'renderer', 'index.html'), path.join(rendererDir, 'index.html'));
    t = await startTestServer({ domains: [], rendererDir });
  });
  afterAll(async () => {
    await (t as TestServer | undefined)?.close(); // unset when beforeAll failed
    rmSync(rendererDir, { recursive: true, force: true });
  });

  it('serves /favicon.ico: an ICO of 16, 32 and 48 px PNGs, cached for a day', async () => {
    const { res, bytes } = await get(t, '/favicon.ico');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/(x-icon|vnd\.microsoft\.icon)$/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
    const images = icoImages(bytes);
    expect(images.map((image) => image.width)).toEqual([16, 32, 48]);
    for (const image of images) expect(image.png).toEqual({ width: image.width, height: image.height });
  });

  it('serves /manifest.webmanifest as application/manifest+json, and every icon it lists at its declared size', async () => {
    const { res, bytes } = await get(t, '/manifest.webmanifest');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/manifest\+json(; charset=utf-8)?$/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
    const manifest = JSON.parse(bytes.toString('utf8')) as {
      name: string;
      short_name: string;
      start_url: string;
      display: string;
      theme_color: string;
      background_color: string;
      icons: Array<{ src: string; sizes: string; type: string; purpose: string }>;
    };
    expect(manifest).toMatchObject({ name: 'PennyPost', short_name: 'PennyPost', start_url: '/', display: 'standalone' });
    expect(manifest.theme_color).toMatch(/^#[0-9a-f]{6}$/);
    expect(manifest.background_color).toMatch(/^#[0-9a-f]{6}$/);
    // the page's theme-color is the manifest's
    expect(indexHtml).toContain(`<meta name="theme-color" content="${manifest.theme_color}" />`);
    expect(manifest.icons.map((icon) => icon.sizes).sort()).toEqual(['192x192', '512x512']);
    for (const icon of manifest.icons) {
      expect(icon).toMatchObject({ type: 'image/png', purpose: 'any' });
      const served = await get(t, icon.src);
      expect(served.res.status, icon.src).toBe(200);
      expect(served.res.headers.get('content-type')).toBe('image/png');
      expect(served.res.headers.get('cache-control')).toBe('public, max-age=86400');
      const { width, height } = pngSize(served.bytes);
      expect(`${width}x${height}`).toBe(icon.sizes);
    }
  });

  it('serves every icon and the manifest that index.html links to', async () => {
    const links = [...indexHtml.matchAll(/<link rel="(icon|apple-touch-icon|manifest)"[^>]*href="([^"]+)"(?: sizes="([^"]+)")?/g)].map((match) => ({
      rel: match.at(1),
      href: match.at(2)!,
      sizes: match.at(3),
    }));
    expect(links.map((link) => link.rel)).toEqual(['icon', 'icon', 'apple-touch-icon', 'manifest']);
    for (const link of links) {
      const { res, bytes } = await get(t, link.href);
      expect(res.status, link.href).toBe(200);
      if (link.href.endsWith('.png')) expect(`${pngSize(bytes).width}x${pngSize(bytes).height}`).toBe(link.sizes);
      if (link.href.endsWith('.ico'))
        expect(
          icoImages(bytes)
            .map((image) => `${image.width}x${image.height}`)
            .join(' '),
        ).toBe(link.sizes);
    }
    // index.html itself is still revalidated on every load
    expect((await t.fetch('/')).headers.get('cache-control')).toBe('no-cache');
  });

  it('the committed files are what renderer/scripts/make-web-icons.mjs makes', async () => {
    const script = pathToFileURL(path.join(root, 'renderer', 'scripts', 'make-web-icons.mjs')).href;
    const { makeWebIcons } = (await import(script)) as { makeWebIcons: (dir: string) => void };
    const fresh = mkdtempSync(path.join(os.tmpdir(), 'pennypost-icons-'));
    try {
      makeWebIcons(fresh);
      // The rest of renderer/public/ is written by hand: the service worker and its offline page (docs/ui.md).
      const handWritten = new Set(['sw.js', 'offline.html', 'offline.css', 'offline.js']);
      expect(readdirSync(fresh).sort()).toEqual(
        readdirSync(publicDir)
          .filter((name) => !handWritten.has(name))
          .sort(),
      );
      for (const name of readdirSync(fresh)) expect(readFileSync(path.join(fresh, name)).equals(readFileSync(path.join(publicDir, name))), name).toBe(true);
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  it('are no more reachable from the LAN than the UI itself: only with network.lanApi on', () => {
    const statusFor = (pathname: string, remoteAddress: string, lanApi: boolean) => {
      const policy = networkPolicy(() => normalizeSettings({ network: { lan: true, lanApi } }));
      return callMiddleware(policy, { path: pathname, remoteAddress }).result;
    };
    for (const pathname of ['/', '/favicon.ico', '/manifest.webmanifest', '/icon-192.png', '/apple-touch-icon.png']) {
      expect(statusFor(pathname, '::ffff:192.168.1.20', false), pathname).toBe(403);
      expect(statusFor(pathname, '::ffff:192.168.1.20', true), pathname).toBe('next');
      expect(statusFor(pathname, '127.0.0.1', false), pathname).toBe('next');
    }
  });
});
