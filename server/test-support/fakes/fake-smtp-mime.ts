/**
 * Just enough MIME (RFC 5322, 2045–2047) to read what a mail client sends, for the fake SMTP
 * server's assertions: unfolded headers with encoded words decoded, multipart bodies split, and
 * base64 / quoted-printable parts decoded to text.
 */

export interface MimePart {
  /** Header names lower-cased; values unfolded and decoded. */
  headers: Map<string, string>;
  /** The decoded body (for a multipart: the preamble is dropped and `parts` holds the rest). */
  body: string;
  parts: MimePart[];
}

function decodeQ(text: string): Buffer {
  return Buffer.from(
    text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_all, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  );
}

/** RFC 2047 encoded words (`=?utf-8?B?…?=`, `=?utf-8?Q?…?=`); the whitespace between two of them goes. */
export function decodeWords(value: string): string {
  return value
    .replace(/(=\?[^?]+\?[BbQq]\?[^?]*\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_all, _charset: string, encoding: string, text: string) =>
      (encoding.toUpperCase() === 'B' ? Buffer.from(text, 'base64') : decodeQ(text)).toString('utf8'),
    );
}

function decodeQuotedPrintable(text: string): string {
  const bytes = text.replace(/=\r?\n/g, '').replace(/=([0-9A-Fa-f]{2})/g, (_all, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

function parseHeaders(block: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, decodeWords(line.slice(colon + 1).trim()));
  }
  return headers;
}

/** A parameter of a structured header value, e.g. boundary of Content-Type. */
export function headerParam(value: string, name: string): string | undefined {
  const match = new RegExp(`;\\s*${name}="?([^";]+)"?`, 'i').exec(value);
  return match?.[1];
}

export function parseMime(raw: string): MimePart {
  const split = /\r?\n\r?\n/.exec(raw);
  const head = split ? raw.slice(0, split.index) : raw;
  const rest = split ? raw.slice(split.index + split[0].length) : '';
  const headers = parseHeaders(head);
  const type = headers.get('content-type') ?? 'text/plain';
  const boundary = type.toLowerCase().startsWith('multipart/') ? headerParam(type, 'boundary') : undefined;
  if (boundary) {
    const sections = rest.split(`--${boundary}`);
    const parts = sections
      .slice(1)
      .filter((section) => !section.startsWith('--'))
      .map((section) => parseMime(section.replace(/^\r?\n/, '').replace(/\r?\n$/, '')));
    return { headers, body: '', parts };
  }
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  const body = encoding === 'base64' ? Buffer.from(rest.replace(/\s+/g, ''), 'base64').toString('utf8') : encoding === 'quoted-printable' ? decodeQuotedPrintable(rest) : rest;
  return { headers, body, parts: [] };
}

/** The first leaf part of a content type (e.g. text/html), depth first. */
export function findPart(part: MimePart, contentType: string): MimePart | undefined {
  if (part.parts.length === 0) return (part.headers.get('content-type') ?? 'text/plain').toLowerCase().startsWith(contentType) ? part : undefined;
  for (const child of part.parts) {
    const found = findPart(child, contentType);
    if (found) return found;
  }
  return undefined;
}
