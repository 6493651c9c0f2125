// Writes the browser's icons and the web app manifest into renderer/public/, which Vite copies to
// the root of dist/renderer/ (vite.config.ts, publicDir) and the server serves at /:
//
//   favicon.ico            ICO container of 16, 32 and 48 px PNGs (what browsers ask for by default)
//   icon-192.png, icon-512.png   the manifest's icons (purpose "any": the artwork has a transparent
//                          margin, no full-bleed safe zone, so no "maskable" icon is declared)
//   apple-touch-icon.png   180 px, opaque: iOS fills transparency with black and rounds the corners
//                          itself, so the icon's own teal background is extended to the edges
//   manifest.webmanifest   name, colours, start URL and the icons above
//
// Every image is drawn from the same vector artwork as the desktop icons (appIcon() in
// build/make-icons.mjs, rendered at each size with supersampling — never a resized bitmap), so the
// files are byte-for-byte reproducible. Run: node renderer/scripts/make-web-icons.mjs
// (the files are committed; rerun after changing the design or the colours below).
// server/http/web-icons.test.ts checks the committed files.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { appIcon, encodePng, iconBackground, render } from '../../build/make-icons.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const PUBLIC_DIR = path.join(here, '..', 'public');

/** Mantine teal-6, the UI's primary colour (renderer/index.html's theme-color says the same). */
export const THEME_COLOR = '#12b886';
/** Mantine gray-0, the light UI's canvas (--pp-canvas in renderer/src/styles/app.css). */
export const BACKGROUND_COLOR = '#f8f9fa';
export const FAVICON_SIZES = [16, 32, 48];

const png = (size, shader = appIcon) => encodePng(size, size, render(size, shader));

/** The app icon over its own background gradient, edge to edge (no transparent pixel). */
function fullBleedIcon(x, y) {
  const [r, g, b, a] = appIcon(x, y);
  const bg = iconBackground(y);
  return [r * a + bg[0] * (1 - a), g * a + bg[1] * (1 - a), b * a + bg[2] * (1 - a), 1];
}

/** ICO with PNG payloads: ICONDIR (6 bytes), one ICONDIRENTRY (16 bytes) per image, then the PNGs. */
export function encodeIco(images) {
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(images.length, 4);
  let offset = 6 + 16 * images.length;
  const entries = images.map(({ size, bytes }) => {
    const entry = Buffer.alloc(16);
    entry[0] = size >= 256 ? 0 : size; // width (0 means 256)
    entry[1] = size >= 256 ? 0 : size; // height
    entry[2] = 0; // palette colours
    entry[3] = 0; // reserved
    entry.writeUInt16LE(1, 4); // colour planes
    entry.writeUInt16LE(32, 6); // bits per pixel
    entry.writeUInt32LE(bytes.length, 8);
    entry.writeUInt32LE(offset, 12);
    offset += bytes.length;
    return entry;
  });
  return Buffer.concat([header, ...entries, ...images.map((image) => image.bytes)]);
}

export function webManifest() {
  return {
    id: '/',
    name: 'PennyPost',
    short_name: 'PennyPost',
    description: 'Local-first bookkeeping with a built-in push webhook',
    start_url: '/',
    scope: '/',
    display: 'standalone',
    background_color: BACKGROUND_COLOR,
    theme_color: THEME_COLOR,
    icons: [192, 512].map((size) => ({ src: `/icon-${size}.png`, sizes: `${size}x${size}`, type: 'image/png', purpose: 'any' })),
  };
}

export function makeWebIcons(dir = PUBLIC_DIR) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'favicon.ico'), encodeIco(FAVICON_SIZES.map((size) => ({ size, bytes: png(size) }))));
  for (const size of [192, 512]) writeFileSync(path.join(dir, `icon-${size}.png`), png(size));
  writeFileSync(path.join(dir, 'apple-touch-icon.png'), png(180, fullBleedIcon));
  writeFileSync(path.join(dir, 'manifest.webmanifest'), JSON.stringify(webManifest(), null, 2) + '\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  makeWebIcons();
  process.stdout.write('wrote renderer/public/{favicon.ico,icon-192.png,icon-512.png,apple-touch-icon.png,manifest.webmanifest}\n');
}
