import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { staticCacheControl } from './static-cache';

describe('staticCacheControl', () => {
  it('keeps hashed bundles for good, checks the page and service worker every load, the rest daily', () => {
    const ui = (...parts: string[]) => path.join('/srv', 'dist', 'renderer', ...parts);
    expect(staticCacheControl(ui('_app', 'index-abc.js'), '_app')).toBe('public, max-age=31536000, immutable');
    expect(staticCacheControl(ui('index.html'), '_app')).toBe('no-cache');
    expect(staticCacheControl(ui('sw.js'), '_app')).toBe('no-cache');
    expect(staticCacheControl(ui('icon-192.png'), '_app')).toBe('public, max-age=86400');
    // The desktop UI's /app screen folder is not a bundle folder: only the named one is.
    expect(staticCacheControl(ui('app', 'x.js'), '_app')).toBe('public, max-age=86400');
  });
});
