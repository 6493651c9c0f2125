import { readFile } from 'node:fs/promises';
import { filesErrors } from './errors';

/**
 * The media types PennyPost accepts as files, how each is recognised from its bytes, and how it
 * is served. Types a browser could execute (HTML, SVG, XML, JavaScript) are not supported at all:
 * a receipt never needs them, and refusing them removes a whole class of stored-XSS problems.
 */
export interface FileTypeInfo {
  /** The canonical media type (stored, and sent as Content-Type). */
  mime: string;
  /** Media types that file-type may report for these bytes; 'text' = no magic number, checked as text. */
  detect: readonly string[] | 'text';
  /** File name extensions of this type (the first is added when a download name lacks one). */
  extensions: readonly string[];
  /** inline: shown by the browser (images, plain text); attachment: always downloaded. */
  disposition: 'inline' | 'attachment';
}

export const SUPPORTED_TYPES: readonly FileTypeInfo[] = [
  { mime: 'image/jpeg', detect: ['image/jpeg'], extensions: ['jpg', 'jpeg', 'jpe', 'jfif'], disposition: 'inline' },
  { mime: 'image/png', detect: ['image/png', 'image/apng'], extensions: ['png'], disposition: 'inline' },
  { mime: 'image/gif', detect: ['image/gif'], extensions: ['gif'], disposition: 'inline' },
  { mime: 'image/webp', detect: ['image/webp'], extensions: ['webp'], disposition: 'inline' },
  { mime: 'image/heic', detect: ['image/heic', 'image/heic-sequence', 'image/heif', 'image/heif-sequence'], extensions: ['heic'], disposition: 'inline' },
  { mime: 'image/heif', detect: ['image/heif', 'image/heif-sequence', 'image/heic', 'image/heic-sequence'], extensions: ['heif'], disposition: 'inline' },
  { mime: 'image/avif', detect: ['image/avif'], extensions: ['avif'], disposition: 'inline' },
  // PDF may carry scripts that a browser's viewer runs: always downloaded.
  { mime: 'application/pdf', detect: ['application/pdf'], extensions: ['pdf'], disposition: 'attachment' },
  { mime: 'text/plain', detect: 'text', extensions: ['txt', 'text', 'log'], disposition: 'inline' },
  { mime: 'text/csv', detect: 'text', extensions: ['csv'], disposition: 'attachment' },
];

const BY_MIME = new Map(SUPPORTED_TYPES.map((t) => [t.mime, t]));

/** Common spellings that mean one of the supported types. */
const ALIASES: Record<string, string> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'image/x-png': 'image/png',
  'application/x-pdf': 'application/pdf',
  'application/csv': 'text/csv',
  'text/comma-separated-values': 'text/csv',
  'application/vnd.ms-excel.csv': 'text/csv',
};

/** `Image/JPG; charset=x` → `image/jpeg`: lower case, parameters dropped, aliases resolved. */
export function normalizeMediaType(value: string): string {
  const semicolon = value.indexOf(';');
  const bare = (semicolon === -1 ? value : value.slice(0, semicolon)).trim().toLowerCase();
  return ALIASES[bare] ?? bare;
}

export function typeInfo(mime: string): FileTypeInfo | undefined {
  return BY_MIME.get(mime);
}

/** Byte encodings accepted for text files. GB18030 (a superset of GBK) covers Chinese bank and Alipay exports. */
export type TextEncoding = 'utf-8' | 'gb18030';

/** Markup that a lenient (sniffing) browser could render as a page; refused in text files. */
const MARKUP_START = /^\s*<(!doctype|html|head|body|script|svg|iframe|object|embed|\?xml|meta|style|img|a\s|div|p\s|p>|!--)/i;

/**
 * Checks that bytes are a text file: valid UTF-8 (BOM allowed) or GB18030, no NUL or other
 * control characters besides tab, newline, carriage return and form feed, and not HTML/XML/SVG
 * markup. Returns the encoding, or a plain-words reason for refusing.
 */
export function checkText(bytes: Uint8Array): { ok: true; encoding: TextEncoding } | { ok: false; reason: string } {
  let text: string | undefined;
  let encoding: TextEncoding = 'utf-8';
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    try {
      text = new TextDecoder('gb18030', { fatal: true }).decode(bytes);
      encoding = 'gb18030';
    } catch {
      return { ok: false, reason: 'it is not text (neither UTF-8 nor GB18030)' };
    }
  }
  // eslint-disable-next-line no-control-regex -- the point is to find control characters: they mean the bytes are not a text file
  if (/[\u0000-\u0008\u000b\u000e-\u001f\u007f]/.test(text)) return { ok: false, reason: 'it contains control characters, so it is not a text file' };
  if (MARKUP_START.test(text.slice(0, 1024))) return { ok: false, reason: 'it looks like an HTML or XML document, which is not accepted' };
  return { ok: true, encoding };
}

/**
 * Checks stored bytes against their declared type: magic numbers for binary types, checkText for
 * text types. Returns the text encoding ('' for binary types), or throws 5003 (filesErrors)
 * saying what the bytes are instead.
 */
export async function checkContent(path: string, declared: string): Promise<TextEncoding | ''> {
  const info = typeInfo(declared);
  if (!info) throw new Error(`checkContent: "${declared}" is not a supported file type (file.upload accepts only supported types)`);
  // Loaded on the first upload, not at every start.
  const { fileTypeFromFile } = await import('file-type');
  const detected = await fileTypeFromFile(path);
  if (info.detect === 'text') {
    if (detected) throw filesErrors.bytesOfAnotherType(detected.mime, declared).with({ detected: detected.mime });
    const result = checkText(await readFile(path));
    if (!result.ok) throw filesErrors.bytesNotText(declared, result.reason);
    return result.encoding;
  }
  if (!detected || !info.detect.includes(detected.mime)) {
    const mime = detected?.mime ?? null;
    throw filesErrors.bytesNotOfDeclaredType(mime, declared).with({ detected: mime });
  }
  return '';
}
