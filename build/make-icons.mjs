// Draws PennyPost's icons with plain Node (no image libraries): an envelope with a coin on a teal
// rounded square. Writes build/icon.png (512×512, what electron-builder turns into .icns/.ico),
// build/icons/<n>x<n>.png (Linux), and the tray icons (tray.png, trayTemplate.png for macOS).
// Run: node build/make-icons.mjs  (the PNGs are committed; rerun only to change the design).
// The web icons (favicon.ico, icon-192/512.png, apple-touch-icon.png in renderer/public/) are drawn
// from the same appIcon() by renderer/scripts/make-web-icons.mjs: rerun it after a design change.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const here = path.dirname(fileURLToPath(import.meta.url));

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
/** RGBA pixels (Uint8Array, row-major) → PNG bytes. */
export function encodePng(width, height, rgba) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 4 + 1)] = 0; // filter: none
    Buffer.from(rgba.buffer, rgba.byteOffset + y * width * 4, width * 4).copy(raw, y * (width * 4 + 1) + 1);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

// ---- shapes in a 0..1 square (signed distance: < 0 inside) ----
const roundRect = (x, y, cx, cy, hw, hh, r) => {
  const qx = Math.abs(x - cx) - hw + r;
  const qy = Math.abs(y - cy) - hh + r;
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
};
const circle = (x, y, cx, cy, r) => Math.hypot(x - cx, y - cy) - r;
/** Distance to a segment, minus half the stroke width. */
const stroke = (x, y, ax, ay, bx, by, w) => {
  const t = Math.max(0, Math.min(1, ((x - ax) * (bx - ax) + (y - ay) * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2)));
  return Math.hypot(x - ax - t * (bx - ax), y - ay - t * (by - ay)) - w / 2;
};

function mix(a, b, t) {
  return a.map((v, i) => v + (b[i] - v) * t);
}
/** Paints `color` over `under` with coverage `alpha`. */
function over(under, color, alpha) {
  const a = alpha * (color[3] ?? 1);
  const outA = a + under[3] * (1 - a);
  if (outA === 0) return [0, 0, 0, 0];
  return [0, 1, 2].map((i) => (color[i] * a + under[i] * under[3] * (1 - a)) / outA).concat(outA);
}

/** The app icon's background: a teal gradient from top to bottom. */
const ICON_GRADIENT = [
  [20, 184, 166],
  [15, 118, 110],
];
export const iconBackground = (y) => mix(ICON_GRADIENT[0], ICON_GRADIENT[1], y);

/** The full-colour app icon at one sample point. */
export function appIcon(x, y) {
  let px = [0, 0, 0, 0];
  if (roundRect(x, y, 0.5, 0.5, 0.44, 0.44, 0.1) < 0) px = [...iconBackground(y), 1];
  // envelope
  const env = roundRect(x, y, 0.44, 0.58, 0.26, 0.17, 0.035);
  if (env < 0) {
    px = over(px, [255, 255, 255], 1);
    const flap = Math.min(stroke(x, y, 0.2, 0.44, 0.44, 0.62, 0.035), stroke(x, y, 0.44, 0.62, 0.68, 0.44, 0.035));
    if (flap < 0) px = over(px, [15, 118, 110], 0.85);
  }
  // coin with a ring and a slot
  const coin = circle(x, y, 0.69, 0.34, 0.15);
  if (coin < 0) {
    px = over(px, [0, 0, 0], 0.18 * (circle(x, y, 0.7, 0.35, 0.15) < 0 ? 1 : 0));
    px = over(px, [251, 191, 36], 1);
    if (Math.abs(circle(x, y, 0.69, 0.34, 0.105)) < 0.012) px = over(px, [217, 119, 6], 1);
    if (roundRect(x, y, 0.69, 0.34, 0.012, 0.055, 0.01) < 0) px = over(px, [217, 119, 6], 1);
  }
  return px;
}

/** The tray icon: the envelope and coin as a single-colour silhouette (macOS template style). */
function trayIcon(color) {
  return (x, y) => {
    const env = roundRect(x, y, 0.42, 0.6, 0.38, 0.27, 0.06) < 0;
    const flap = Math.min(stroke(x, y, 0.06, 0.38, 0.42, 0.66, 0.09), stroke(x, y, 0.42, 0.66, 0.78, 0.38, 0.09)) < 0;
    const coin = circle(x, y, 0.76, 0.26, 0.22) < 0;
    const coinGap = circle(x, y, 0.76, 0.26, 0.29) < 0;
    const inEnvelope = env && !flap && !coinGap;
    return inEnvelope || coin ? [...color, 1] : [0, 0, 0, 0];
  };
}

/** Renders with 4×4 supersampling for smooth edges. */
export function render(size, shader) {
  const out = new Uint8Array(size * size * 4);
  const n = 4;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0,
        g = 0,
        b = 0,
        a = 0;
      for (let sy = 0; sy < n; sy++) {
        for (let sx = 0; sx < n; sx++) {
          const c = shader((px + (sx + 0.5) / n) / size, (py + (sy + 0.5) / n) / size);
          r += c[0] * c[3];
          g += c[1] * c[3];
          b += c[2] * c[3];
          a += c[3];
        }
      }
      const i = (py * size + px) * 4;
      out[i] = a ? Math.round(r / a) : 0;
      out[i + 1] = a ? Math.round(g / a) : 0;
      out[i + 2] = a ? Math.round(b / a) : 0;
      out[i + 3] = Math.round((a / (n * n)) * 255);
    }
  }
  return out;
}

function write(file, size, shader) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, encodePng(size, size, render(size, shader)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  write(path.join(here, 'icon.png'), 512, appIcon);
  for (const size of [16, 24, 32, 48, 64, 128, 256, 512]) write(path.join(here, 'icons', `${size}x${size}.png`), size, appIcon);
  write(path.join(here, 'tray.png'), 32, trayIcon([20, 184, 166]));
  write(path.join(here, 'trayTemplate.png'), 16, trayIcon([0, 0, 0]));
  write(path.join(here, 'trayTemplate@2x.png'), 32, trayIcon([0, 0, 0]));
  process.stdout.write('wrote build/icon.png, build/icons/*.png, build/tray.png, build/trayTemplate*.png\n');
}
