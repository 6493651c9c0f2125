/**
 * How deep JSON may nest before it is parsed at all. `JSON.parse` of 1 MB of nested brackets holds
 * the event loop for a third of a second or more (it recurses once per level), and the shape check
 * that refuses such bodies runs only after it. This scan is one pass over the bytes (a few ms per
 * MB): brackets outside strings, escapes honoured. The bound is far above any real request; the
 * shape check (api/validation.ts, MAX_JSON_DEPTH) keeps its own, lower one.
 */
export const MAX_PARSE_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** True when the JSON text in `bytes` opens more than `limit` arrays or objects inside each other. */
export function nestsDeeperThan(bytes: Uint8Array, limit = MAX_PARSE_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
      continue;
    }
    if (byte === QUOTE) inString = true;
    else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) depth--;
  }
  return false;
}

/** The same for JSON text already read as a string. */
export function textNestsDeeperThan(text: string, limit = MAX_PARSE_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i++;
      else if (code === QUOTE) inString = false;
      continue;
    }
    if (code === QUOTE) inString = true;
    else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth--;
  }
  return false;
}

/** body-parser's `verify` hook: refuses (400) a JSON body that nests too deep, before it is parsed. */
export function refuseDeepJson(_req: unknown, _res: unknown, buffer: Buffer): void {
  if (nestsDeeperThan(buffer)) throw Object.assign(new Error(`request nests deeper than ${MAX_PARSE_DEPTH} levels`), { status: 400, type: 'json.too.deep' });
}
