/**
 * Hostile requests at the drop-in forms of other push clients (docs/push.md "Drop-in for other push
 * clients"), for fuzz.test.ts: Gotify's POST /message, Bark's /{key}/… and POST /push, ntfy's
 * /{key}/publish|send|trigger and JSON publishing on /, and ServerChan³'s /send/sctp{n}t{key}.send.
 * Each random request says which answer shapes its form may give; the shape checkers below say
 * whether an answer is one of them, with an HTTP status that matches the shape's code.
 */
import fc from 'fast-check';
import type { Answer } from './helpers';

/** The answers a drop-in request may get. 'ui': the UI's index.html (or the "UI is not built" 404 when the test server has none). */
export type Shape = 'gotify' | 'bark' | 'ntfy' | 'envelope' | 'ui' | 'not-found';

export interface DropinCase {
  form: string;
  method: string;
  path: string;
  query: Array<[string, string]>;
  headers: Record<string, string>;
  body?: { type?: string; text: string };
  /** What the answer may be, besides a 204 to OPTIONS / HEAD. */
  shapes: Shape[];
}

/**
 * An answer that pushed (anything else is a refusal and must change nothing). Bark's `device_keys`
 * are pushed one after another (an unknown key refuses them all first): a later failure after some
 * of them says "Pushed to the first N of M …".
 */
export function accepted(shape: Shape | null, answer: Answer): boolean {
  const json = answer.json as Record<string, unknown> | undefined;
  if (shape === 'bark' && typeof json?.message === 'string' && /^Pushed to the first \d+ of \d+ device keys/.test(json.message)) return true;
  if (answer.status !== 200 || !json) return false;
  return (shape === 'envelope' && json.code === 0) || (shape === 'bark' && json.code === 200) || ((shape === 'gotify' || shape === 'ntfy') && 'pennypost' in json);
}

const isText = (value: unknown): value is string => typeof value === 'string';
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** Gotify Message `{id, appid, message, title, priority, date}` (200) or Gotify error `{error, errorCode, errorDescription}` (HTTP = errorCode). */
export function gotifyProblem(answer: Answer): string | null {
  const json = answer.json as Record<string, unknown> | undefined;
  if (!json || typeof json !== 'object') return 'not JSON';
  if ('errorCode' in json) {
    if (!isText(json.error) || !isText(json.errorDescription) || json.errorDescription === '') return 'Gotify error without error / errorDescription';
    return json.errorCode === answer.status ? null : `HTTP ${answer.status} for errorCode ${String(json.errorCode)}`;
  }
  const message = isNumber(json.id) && isNumber(json.appid) && isText(json.message) && isText(json.title) && isNumber(json.priority) && isText(json.date);
  if (!message) return 'neither a Gotify Message nor a Gotify error';
  return answer.status === 200 ? null : `Gotify Message with HTTP ${answer.status}`;
}

/** Bark `{code, message, timestamp}`: code 200 with HTTP 200, else HTTP = code. */
export function barkProblem(answer: Answer): string | null {
  const json = answer.json as Record<string, unknown> | undefined;
  if (!json || typeof json !== 'object') return 'not JSON';
  if (!isNumber(json.code) || !isText(json.message) || json.message === '' || !isNumber(json.timestamp)) return 'not a Bark answer {code, message, timestamp}';
  return json.code === answer.status ? null : `HTTP ${answer.status} for Bark code ${json.code}`;
}

/** ntfy message `{id, time, expires, event: 'message', topic, message}` (200) or ntfy error `{code: HTTP × 100, http: HTTP, error}`. */
export function ntfyProblem(answer: Answer): string | null {
  const json = answer.json as Record<string, unknown> | undefined;
  if (!json || typeof json !== 'object') return 'not JSON';
  if (json.event === 'message') {
    const message = isText(json.id) && json.id !== '' && isNumber(json.time) && isNumber(json.expires) && isText(json.topic) && isText(json.message);
    if (!message) return 'an ntfy message without id / time / expires / topic / message';
    return answer.status === 200 ? null : `ntfy message with HTTP ${answer.status}`;
  }
  if (!('http' in json)) return 'neither an ntfy message nor an ntfy error';
  if (!isText(json.error) || json.error === '') return 'ntfy error without error';
  return json.http === answer.status && json.code === answer.status * 100 ? null : `HTTP ${answer.status} for ntfy {code: ${String(json.code)}, http: ${String(json.http)}}`;
}

/** The UI's page (or, without a built UI, its "not built" 404), for GET only. */
export function uiProblem(answer: Answer, method: string): string | null {
  if (method !== 'GET') return `the UI's page for ${method}`;
  if (answer.raw === undefined) return 'JSON where the UI page belongs';
  if (answer.status === 200 && /<!doctype html/i.test(answer.raw)) return null;
  return answer.status === 404 && /UI is not built/.test(answer.raw) ? null : `HTTP ${answer.status} ${answer.raw.slice(0, 80)}`;
}

/** The generic text 404 of a path no route takes. */
export function notFoundProblem(answer: Answer): string | null {
  return answer.status === 404 && answer.raw !== undefined && /^Not found: /.test(answer.raw) ? null : `HTTP ${answer.status}, not the plain 404`;
}

/** Stack traces, source paths and internal error names never belong in an answer. */
export function leakProblem(text: string, secrets: readonly string[]): string | null {
  if (/\n\s+at .+:\d+:\d+/.test(text) || /node_modules|\/server\/[a-z-]+\/[a-z-]+\.ts|\/work\//.test(text)) return 'a stack trace or source path in the answer';
  if (/TypeError|ReferenceError|SyntaxError: Unexpected|Cannot read propert/.test(text)) return 'an internal error message in the answer';
  const secret = secrets.find((s) => s && text.includes(s));
  return secret ? 'a secret in the answer' : null;
}

// ---- the random requests ----
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Header values undici sends: Latin-1 without control characters, trimmed. */
const headerSafe = (text: string) =>
  text
    .replace(/[^\x20-\x7e\xa0-\xff]/g, '')
    .trim()
    .slice(0, 600);

/** A whole key as a path segment: the real one, another of the same shape, key-like junk, percent-encoded junk, very long. */
function keys(appKey: string) {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant(appKey) },
    { weight: 2, arbitrary: fc.array(fc.constantFrom(...Array.from(BASE62)), { minLength: 22, maxLength: 64 }).map((chars) => `PP${chars.join('')}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('PP', 'pp' + appKey.slice(2), appKey + 'x', appKey.slice(0, -1), appKey.toLowerCase(), 'token', 'null', 'undefined', '__proto__', '0'),
    },
    { weight: 1, arbitrary: fc.constantFrom('%00', '%2e%2e%2fapi', '%E0%A4%A', '%ff%fe', `${appKey}%00`, `%50%50${appKey.slice(2)}`, '%252F', '..%5c..%5c') },
    { weight: 1, arbitrary: fc.constantFrom(`PP${'a'.repeat(65)}`, `${appKey}${'Z'.repeat(2500)}`, 'P'.repeat(3000)) },
  );
}

/** Words that go into paths, query values, headers and fields. */
function words() {
  return fc.oneof(
    fc.constantFrom('hello', 'Backup done', '', ' ', 'publish', 'send', 'trigger', 'push', 'message', '\u0000', '\ud800', '\u202e\u200b', '🧾💸', '../x', '1e400', 'NaN', '-1'),
    fc.constantFrom('=?UTF-8?B?!!!?=', '=?UTF-8?B?w6k=?=', '=?x-unknown?Q?=ZZ?=', '=?UTF-16?B?2D3YAA==?=', '=?utf-8?q?caf=C3=A9_=FF?=', '=?=?=?', 'caf\u00c3\u00a9'),
    fc.constantFrom('u=3, i', '0', '5', '6', '99', 'max', 'urgent', 'critical', 'timesensitive', '1h', '30m', '-5m', 'tomorrow', '1e12', '10y', '2099-01-01T00:00:00Z'),
    fc.string({ maxLength: 60 }),
    fc.string({ unit: 'binary', maxLength: 60 }),
    fc.constantFrom('x'.repeat(300), 'y'.repeat(70_000)),
  );
}

const deep = (depth: number, inner: string) => '['.repeat(depth) + inner + ']'.repeat(depth);
const FIELDS = ['title', 'message', 'body', 'subtitle', 'desp', 'text', 'priority', 'level', 'group', 'url', 'markdown', 'extras', 'tags', 'click', 'delay', 'at', 'in', 'topic'];
const FIELDS_PLUS = [...FIELDS, 'device_key', 'device_keys', 'token', '__proto__', 'constructor', 'title[]', ''];

/** A JSON value for a field: text, numbers, arrays, objects, nesting. */
function fieldValue(key: () => string) {
  return fc.oneof(
    { weight: 4, arbitrary: words() },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(0, -1, 5, 11, 1.5, 1e308, true, null, [], {}, ['a', 1], { url: 'https://example.com' }) },
    { weight: 1, arbitrary: fc.constant(null).map(() => key()) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>({ 'client::notification': { click: { url: 'https://example.com/a' } } }, { 'client::notification': 'x' }, [key(), 'PPnope']) },
  );
}

/** Bodies: JSON objects of the forms' fields, forms, multipart (real and broken), text, huge, deep, wrong content types. */
function bodies(key: () => string) {
  const object = fc.dictionary(fc.constantFrom(...FIELDS_PLUS), fieldValue(key), { maxKeys: 5 });
  const pairs = fc.array(fc.tuple(fc.constantFrom(...FIELDS_PLUS), words()), { maxLength: 5 });
  return fc.oneof(
    fc.constant(undefined),
    object.map((o) => ({ type: 'application/json', text: JSON.stringify(o) })),
    // Plausible: what the forms' clients send, with random words (so that pushes get through too).
    fc
      .record(
        { topic: fc.constant(key()), device_key: fc.constant(key()), title: words(), message: words(), body: words(), priority: fc.constantFrom(5, '3', 'high') },
        { requiredKeys: ['topic', 'message'] },
      )
      .map((o) => ({ type: 'application/json', text: JSON.stringify(o) })),
    object.map((o) => ({ type: 'application/json', text: JSON.stringify(o).replace(/^\{/, '{"topic":' + JSON.stringify(key()) + ',') })),
    pairs.map((p) => ({ type: 'application/x-www-form-urlencoded', text: new URLSearchParams(p).toString() })),
    pairs.map((p) => ({
      type: 'multipart/form-data; boundary=zz',
      text: p.map(([k, v]) => `--zz\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('') + '--zz--\r\n',
    })),
    fc.constantFrom(
      { type: 'multipart/form-data; boundary=zz', text: '--zz\r\n\r\n--zz' },
      { type: 'multipart/form-data', text: 'title=x' },
      { type: 'application/json', text: '{"title": "x"' },
      { type: 'application/json', text: '[1,2]' },
      { type: 'application/json', text: 'null' },
      { type: 'application/json', text: '"title"' },
      { type: 'application/json', text: `{"title":"t","message":${deep(5000, '')}}` },
      { type: 'application/json', text: JSON.stringify({ title: 't', message: 'm'.repeat(300_000), body: 'b'.repeat(300_000) }) },
      { type: 'application/json', text: '{"title":"t","__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}' },
      { type: 'application/json; charset=ebcdic', text: '{"title":"x"}' },
      { type: 'application/x-www-form-urlencoded', text: Array.from({ length: 300 }, (_, i) => `f${i}=1`).join('&') },
      { type: 'application/xml', text: '<message>hi</message>' },
      { type: 'image/png', text: '\u0089PNG\r\n' },
      { type: undefined, text: 'plain words' },
    ),
    fc.tuple(fc.constantFrom('text/plain', 'application/json', 'text/json', 'application/octet-stream'), words()).map(([type, text]) => ({ type, text })),
  );
}

/** ntfy's option headers, Gotify's key headers and other junk headers. */
function headerSets(key: () => string) {
  const name = fc.constantFrom(
    'Title',
    'X-Title',
    'Priority',
    'X-Priority',
    'Tags',
    'Delay',
    'X-Delay',
    'In',
    'At',
    'Click',
    'Message',
    'Markdown',
    'X-Gotify-Key',
    'Authorization',
  );
  const value = fc.oneof(
    words(),
    fc.constant(null).map(() => key()),
    fc.constantFrom('Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'bearer  PP', 'Bearer a b'),
    fc.constant(null).map(() => `Bearer ${key()}`),
  );
  return fc.dictionary(name, value, { maxKeys: 4 }).map((headers) => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, headerSafe(v)])));
}

/** Random requests at the drop-in forms. `appKey` is the fuzzing user's key. */
export function dropinCases(appKey: string): fc.Arbitrary<DropinCase> {
  // Fields and headers that carry a key get the real one now and then (the path's key is drawn separately).
  const key = () => appKey;
  const method = (common: string[]) =>
    fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...common) }, { weight: 1, arbitrary: fc.constantFrom('PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'GET', 'POST') });
  const query = fc.array(fc.tuple(fc.constantFrom(...FIELDS_PLUS, 't', 'p', 'm', 'x'), words()), { maxLength: 4 });
  const segment = fc.oneof(
    { weight: 3, arbitrary: words().map((w) => encodeURIComponent(w.replace(/[\ud800-\udfff]/g, '').slice(0, 2000))) },
    { weight: 1, arbitrary: fc.constantFrom('%00', '%2F', '%ff', '%25', '%E0%A4%A', 'x'.repeat(2000)) },
  );
  const common = fc.record({ key: keys(appKey), query, headers: headerSets(key), body: bodies(key) });
  const sendable = (c: { key: string }) => /^PP[0-9A-Za-z]{22,64}$/.test(c.key);
  const gotify = fc.tuple(common, method(['POST']), fc.constantFrom('query', 'header', 'bearer', 'none')).map(([c, m, where]): DropinCase => {
    const query: Array<[string, string]> = where === 'query' ? [['token', c.key], ...c.query] : c.query;
    const headers =
      where === 'header' ? { ...c.headers, 'X-Gotify-Key': headerSafe(c.key) } : where === 'bearer' ? { ...c.headers, Authorization: `Bearer ${headerSafe(c.key)}` } : c.headers;
    return { form: 'gotify', method: m, path: '/message', query, headers, body: c.body, shapes: m === 'POST' ? ['gotify'] : m === 'GET' ? ['ui'] : ['not-found'] };
  });
  // The first segment is never empty: `/{key}/` is the bare /{appKey}, fuzzed with /send's paths.
  const segments = fc.tuple(
    segment.filter((s) => s !== ''),
    fc.array(segment, { maxLength: 2 }),
  );
  const barkPath = fc.tuple(common, method(['GET', 'POST']), segments).map(([c, m, [first, rest]]): DropinCase => {
    const path = `/${c.key}/${[first, ...rest].join('/')}`;
    // docs/push.md: Bark's paths take 1–3 segments after a key of the app key shape; one of publish/send/trigger is ntfy's.
    const match = /^\/PP[0-9A-Za-z]{22,64}\/([^/]+)(\/[^/]+)?(\/[^/]+)?\/?$/.exec(path);
    const ntfyVerb = match !== null && !match[2] && ['publish', 'send', 'trigger'].includes(match.at(1)!);
    const shapes: Shape[] = !match ? (m === 'GET' ? ['ui', 'not-found'] : ['not-found']) : ntfyVerb ? ['ntfy'] : ['bark'];
    return { form: 'bark path', method: m, path, query: c.query, headers: c.headers, body: c.body, shapes };
  });
  const barkPush = fc.tuple(common, method(['POST']), fc.constantFrom('one', 'many', 'none')).map(([c, m, how]): DropinCase => {
    const fields = how === 'one' ? { device_key: c.key } : how === 'many' ? { device_keys: [c.key, appKey] } : {};
    let body = c.body;
    if (how !== 'none' && (!body || body.type === 'application/json')) {
      try {
        const parsed: unknown = body ? JSON.parse(body.text) : {};
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = { type: 'application/json', text: JSON.stringify({ ...parsed, ...fields }) };
      } catch {
        // Broken or too deep for the test's own JSON: sent as it is.
      }
    }
    return { form: 'bark push', method: m, path: '/push', query: c.query, headers: c.headers, body, shapes: m === 'POST' ? ['bark'] : m === 'GET' ? ['ui'] : ['not-found'] };
  });
  const ntfyVerb = fc.tuple(common, method(['GET', 'POST']), fc.constantFrom('publish', 'send', 'trigger')).map(([c, m, verb]): DropinCase => {
    const shapes: Shape[] = sendable(c) ? ['ntfy'] : m === 'GET' ? ['ui', 'not-found'] : ['not-found'];
    return { form: 'ntfy verb', method: m, path: `/${c.key}/${verb}`, query: c.query, headers: c.headers, body: c.body, shapes };
  });
  const ntfyJson = fc.tuple(common, method(['POST', 'PUT'])).map(([c, m]): DropinCase => {
    const shapes: Shape[] = m === 'POST' || m === 'PUT' ? ['ntfy'] : m === 'GET' ? ['ui'] : ['not-found'];
    return { form: 'ntfy json', method: m, path: '/', query: c.query, headers: c.headers, body: c.body, shapes };
  });
  const serverChan = fc.tuple(common, method(['GET', 'POST']), fc.constantFrom('1', '42', '', '007', 'x', '9'.repeat(40)), fc.boolean()).map(([c, m, uid, dotSend]): DropinCase => {
    const path = `/send/sctp${uid}t${c.key}${dotSend ? '.send' : ''}`;
    return { form: 'serverchan3', method: m, path, query: c.query, headers: c.headers, body: c.body, shapes: ['envelope'] };
  });
  return fc.oneof(gotify, barkPath, barkPush, ntfyVerb, ntfyJson, serverChan);
}

/** The checker of a shape; null when the answer is one. */
export function shapeProblem(shape: Shape, answer: Answer, method: string): string | null {
  switch (shape) {
    case 'gotify':
      return gotifyProblem(answer);
    case 'bark':
      return barkProblem(answer);
    case 'ntfy':
      return ntfyProblem(answer);
    case 'ui':
      return uiProblem(answer, method);
    case 'not-found':
      return notFoundProblem(answer);
    case 'envelope':
      return null; // fuzz.test.ts checks envelopes with the error catalogue (wellFormed)
  }
}
