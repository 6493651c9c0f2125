import path from 'node:path';

/**
 * Cache-Control of a built web app's files (the desktop UI and the phone app): bundles named by
 * content hash (in `bundleDir`) are kept for good; the page and the service worker are checked on
 * every load, so a new build takes over at once; the other public files (icons, manifest) for a day.
 */
export function staticCacheControl(filePath: string, bundleDir: string): string {
  if (filePath.includes(`${path.sep}${bundleDir}${path.sep}`)) return 'public, max-age=31536000, immutable';
  if (path.extname(filePath) === '.html' || path.basename(filePath) === 'sw.js') return 'no-cache';
  return 'public, max-age=86400';
}
