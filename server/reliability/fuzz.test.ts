/**
 * Hostile input against /api and /send: a sweep of bad values over every param of every action
 * in the registry, seeded property-based fuzzing (fast-check) of action names and params, and raw
 * HTTP abuse (malformed JSON, wrong content types, oversized bodies, deep nesting, prototype-
 * pollution keys, odd methods and query shapes).
 *
 * Every answer must be a well-formed envelope `{code, message, data}` with an HTTP status that
 * matches its code, never a 500, never a hang (each request has a timeout); and a refused request
 * must leave the database unchanged: after every non-200 answer, no collection has a new change
 * (RxDB's changes feed, read from the storage) and the local store is unchanged (sign-in lockout
 * counters excepted: recording a failed sign-in is their purpose).
 *
 * Actions that contact other servers (sync.configure, push.testChannel) are left out of the
 * random runs, and a guard refuses any socket to a non-loopback address during the whole file.
 */
import net from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TObject, TSchema } from '@sinclair/typebox';
import { allDomains, allErrorCatalogues } from '../domains';
import { actionsOf } from '../domain';
import { startTestServer, type TestServer } from '../test-support/test-server';
import { accepted, dropinCases, leakProblem, shapeProblem, type Shape } from './dropin-fuzz';
import { api, newUser, ok, request, snapshotOf, sleep, type Answer } from './helpers';
import { pushErrors } from '../push/errors';
import { expectRefusal } from '../test-support/refusal';

// ---- no traffic beyond this machine, whatever the fuzzer builds ----
const blocked: string[] = [];
// eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called with the socket as `this` and put back in afterAll
const originalConnect = net.Socket.prototype.connect;
function isLoopbackHost(host: unknown): boolean {
  return host === undefined || host === 'localhost' || host === '::1' || (typeof host === 'string' && (host.startsWith('127.') || host === '::ffff:127.0.0.1'));
}
net.Socket.prototype.connect = function (this: net.Socket, ...args: any[]) {
  const first = args[0];
  const host = Array.isArray(first)
    ? first[0]?.host
    : typeof first === 'object' && first !== null
      ? first.path
        ? 'localhost'
        : first.host
      : typeof args[1] === 'string'
        ? args[1]
        : undefined;
  if (!isLoopbackHost(host)) {
    blocked.push(String(host));
    process.nextTick(() => this.destroy(new Error(`fuzz test: connection to ${host} refused (127.0.0.1 only)`)));
    return this;
  }
  return (originalConnect as any).apply(this, args);
} as typeof net.Socket.prototype.connect;

const ACTIONS = actionsOf(allDomains());
/** Contact other servers; fuzzed only by their own suites against local fakes. */
const OUTBOUND = new Set(['sync.configure', 'push.testChannel']);
/** Would end the fuzzing session itself (covered in auth-abuse.test.ts). */
const SELF_ENDING = new Set(['user.logout']);
const FUZZED = ACTIONS.filter((a) => !OUTBOUND.has(a.name) && !SELF_ENDING.has(a.name));

let t: TestServer;
let base: string;
let token: string;
const ids: Record<string, string> = {};
let appKey = '';

// ---- change detection straight from the storage ----
interface Checkpoint {
  id: string;
  lwt: number;
}
const checkpoints = new Map<string, Checkpoint | undefined>();
let localBaseline = '';

async function localState(): Promise<string> {
  const entries = await t.server.app.db.local.entries<unknown>('');
  return JSON.stringify(entries.filter(([key]) => !key.startsWith('lockout:')));
}

/** Names of the collections changed since the last call (and whether the local store changed). */
async function changesSinceLastLook(): Promise<string[]> {
  const changed: string[] = [];
  for (const [name, collection] of Object.entries(t.server.app.db.rx.collections)) {
    const instance = (collection as any).storageInstance;
    for (;;) {
      const { documents, checkpoint } = await instance.getChangedDocumentsSince(500, checkpoints.get(name));
      checkpoints.set(name, checkpoint);
      if (documents.length === 0) break;
      if (!changed.includes(name)) changed.push(name);
    }
  }
  const local = await localState();
  if (local !== localBaseline) changed.push('local store');
  localBaseline = local;
  return changed;
}

/** After an accepted request: let derived writes (achievements, history) finish, then take the new state as the baseline. */
async function acceptChanges(): Promise<void> {
  if ((await changesSinceLastLook()).length === 0) return; // a read
  for (let i = 0; i < 40; i++) {
    await sleep(5);
    if ((await changesSinceLastLook()).length === 0) return;
  }
}

// ---- the checks every answer must pass ----
/** The HTTP statuses an envelope code may come with: its catalogue rows' (an HTTP-like code without a row: itself). */
const STATUSES_OF_CODE = new Map<number, Set<number>>();
for (const catalogue of Object.values(allErrorCatalogues())) {
  for (const row of Object.values(catalogue.rows)) STATUSES_OF_CODE.set(row.code, (STATUSES_OF_CODE.get(row.code) ?? new Set()).add(row.status));
}
const statusFits = (status: number, code: number) => (STATUSES_OF_CODE.get(code) ?? new Set(code >= 100 && code < 600 ? [code] : [])).has(status);
const findings: string[] = [];

function wellFormed(label: string, answer: Answer, kind: 'api' | 'send'): void {
  const problems: string[] = [];
  if (answer.raw !== undefined) problems.push(`not a JSON envelope: ${answer.raw.slice(0, 120)}`);
  else {
    if (typeof answer.code !== 'number') problems.push(`code is ${typeof answer.code}`);
    if (typeof answer.message !== 'string' || answer.message.length === 0) problems.push('message missing');
    if (answer.data === undefined) problems.push('data missing');
    if (kind === 'api' && !statusFits(answer.status, answer.code)) problems.push(`HTTP ${answer.status} for code ${answer.code}`);
    if (kind === 'send' && !(answer.code === 0 ? answer.status === 200 : statusFits(answer.status, answer.code))) problems.push(`HTTP ${answer.status} for code ${answer.code}`);
  }
  if (answer.status >= 500) problems.push(`HTTP ${answer.status}: ${answer.message}`);
  if (problems.length > 0) findings.push(`${label} → ${problems.join('; ')}`);
}

async function check(label: string, kind: 'api' | 'send', send: () => Promise<Answer>): Promise<Answer> {
  const answer = await send();
  wellFormed(label, answer, kind);
  if (answer.code === 200 || (kind === 'send' && answer.code === 0)) {
    await acceptChanges();
  } else {
    const changed = await changesSinceLastLook();
    if (changed.length > 0) {
      findings.push(`${label} → refused with ${answer.code} but changed ${changed.join(', ')}`);
      await acceptChanges();
    }
  }
  return answer;
}

const short = (value: unknown) => {
  const text = (JSON.stringify(value) as string | undefined) ?? String(value); // undefined for undefined and functions
  return text.length > 160 ? `${text.slice(0, 160)}…(${text.length})` : text;
};

beforeAll(async () => {
  t = await startTestServer({
    settings: { rateLimit: { apiPerToken: 10_000_000 }, push: { sendPerAppKey: 10_000_000, sendPerAddress: 10_000_000 } },
  });
  base = t.url;
  const user = await newUser(base, 'fuzz');
  token = user.token;
  ids.user = user.id;
  ids.asset = (await ok(base, 'asset.create', { name: 'Wallet', type: 'cash', currency: 'USD', balance: 500 }, token)).id;
  ids.asset2 = (await ok(base, 'asset.create', { name: 'Card', type: 'credit_card', currency: 'USD' }, token)).id;
  ids.record = (await ok(base, 'accounting.create', { type: 'expense', amount: 12.5, asset: ids.asset, category: 'Food' }, token)).id;
  ids.transfer = (await ok(base, 'accounting.create', { type: 'transfer', amount: 3, fromAsset: ids.asset, toAsset: ids.asset2 }, token)).id;
  ids.category = (await ok(base, 'category.list', {}, token)).list?.[0]?.id ?? 'none';
  const channel = await ok(base, 'push.createChannel', { name: 'Desk', type: 'desktop', config: {} }, token);
  ids.channel = channel.id;
  const app = await ok(base, 'push.createApp', { name: 'Fuzz app', channelId: channel.id }, token);
  ids.app = app.id;
  appKey = app.appKey;
  ids.push = (await request(`${base}/send/${appKey}?title=hello`)).data.pushId;
  ids.goal = (await ok(base, 'savings.createGoal', { title: 'Bike', targetAmount: 300, endDate: Date.now() + 90 * 86_400_000 }, token)).id;
  ids.link = (await ok(base, 'shortlink.create', { url: 'https://example.com/a' }, token)).id;
  // Reads that create defaults on first use (categories, wallet grant) happen now, not mid-fuzz.
  for (const action of ['savings.getWallet', 'savings.getAchievements', 'currency.get', 'sync.status']) await api(base, action, {}, token);
  await acceptChanges();
}, 60_000);

afterAll(async () => {
  net.Socket.prototype.connect = originalConnect;
  await (t as TestServer | undefined)?.close(); // unset when beforeAll failed
});

// ---- values ----
const DEEP = (() => {
  let v: unknown = 'bottom';
  for (let i = 0; i < 40; i++) v = { a: v };
  return v;
})();
const WIDE = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, i]));
const BAD_VALUES: unknown[] = [
  null,
  true,
  -1,
  1.5,
  -1e308,
  Number.MAX_SAFE_INTEGER + 2,
  '',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\u202eevil\u200b\ufeff',
  '🧾💸👨‍👩‍👧',
  'x'.repeat(100_000),
  '../../etc/passwd',
  '12.345',
  ['a', 1, null],
  {},
  { $gt: '' },
  DEEP,
  WIDE,
];

describe('every param of every action against bad values', () => {
  it(`${FUZZED.length} actions: wrong types, edge strings, huge values, deep nesting`, { timeout: 300_000 }, async () => {
    let requests = 0;
    for (const action of FUZZED) {
      const props = Object.keys((action.params as Partial<TObject>).properties ?? {}); // a OneOf params schema has none
      const auth = action.auth !== 'public' ? token : undefined;
      // Params not an object, unknown params, nothing at all.
      for (const params of [[], 'params', 42, null, { unknownParam: 1 }, { __proto__: { polluted: true } }]) {
        requests++;
        await check(`${action.name} params=${short(params)}`, 'api', () =>
          request(`${base}/api`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${auth}` } : {}) },
            body: JSON.stringify({ action: action.name, params }),
          }),
        );
      }
      for (const prop of props) {
        for (const value of BAD_VALUES) {
          requests++;
          const params = { ...validParams(action.name), [prop]: value };
          // In-process (the same pipeline as /api, without the socket): the wire has its own cases below.
          const answer = await check(`${action.name} ${prop}=${short(value)}`, 'api', () => t.api(action.name, params, auth));
          if (answer.status === 401 && action.auth !== 'public') throw new Error(`the fuzzing token stopped working at ${action.name}`);
        }
      }
    }
    expect(findings).toEqual([]);
    expect(requests).toBeGreaterThan(1000);
  });
});

/** Plausible params for each action (real ids of the fuzzing user), so bad values meet deep code. */
function validParams(name: string): Record<string, unknown> {
  const day = 86_400_000;
  const table: Record<string, Record<string, unknown>> = {
    'asset.detail': { id: ids.asset },
    'asset.update': { id: ids.asset },
    'asset.delete': { id: 'not-an-asset' },
    'accounting.create': { type: 'expense', amount: 1, asset: ids.asset, category: 'Food' },
    'accounting.get': { id: ids.record },
    'accounting.update': { id: ids.record },
    'accounting.delete': { id: 'not-a-record' },
    'accounting.importCsv': { csv: 'date,type,amount,asset\n2026-01-01,expense,1,Wallet\n', dryRun: true },
    'category.create': { name: 'Fuzz', type: 'expense' },
    'category.update': { id: ids.category },
    'category.delete': { id: 'not-a-category' },
    'currency.setRate': { from: 'USD', to: 'EUR', rate: '0.9' },
    'stats.getIncomeExpense': { startDate: Date.now() - 30 * day, endDate: Date.now() },
    'stats.getCategoryStats': { startDate: Date.now() - 30 * day, endDate: Date.now() },
    'stats.getTrend': { startDate: Date.now() - 90 * day, endDate: Date.now(), groupBy: 'month' },
    'shortlink.create': { url: 'https://example.com/x' },
    'shortlink.query': { id: ids.link },
    'shortlink.update': { id: ids.link },
    'shortlink.delete': { id: 'not-a-link' },
    'savings.createGoal': { title: 'Goal', targetAmount: 10, endDate: Date.now() + 30 * day },
    'savings.getGoal': { id: ids.goal },
    'savings.updateProgress': { id: ids.goal, amount: 1 },
    'savings.updateGoal': { id: ids.goal },
    'savings.deleteGoal': { id: 'not-a-goal' },
    'savings.buyStock': { symbol: 'PENNY', quantity: 1 },
    'savings.sellStock': { symbol: 'PENNY', quantity: 1 },
    'savings.getStockHistory': { symbol: 'PENNY' },
    'push.createChannel': { name: 'C', type: 'desktop' },
    'push.updateChannel': { id: ids.channel },
    'push.deleteChannel': { id: 'not-a-channel' },
    'push.createApp': { name: 'A', channelId: ids.channel },
    'push.updateApp': { id: ids.app },
    'push.deleteApp': { id: 'not-an-app' },
    'push.resetAppKey': { id: 'not-an-app' },
    'push.addRecipient': { appId: ids.app, address: 'x' },
    'push.queryRecipients': { appId: ids.app },
    'push.removeRecipient': { id: 'not-a-recipient' },
    'push.getMessage': { id: ids.push },
    'file.upload': { fileName: 'a.png', fileType: 'image/png', fileSize: 10 },
    'file.delete': { fileId: 'not-a-file' },
    'user.login': { email: 'nobody@example.com', password: 'wrong password' },
    'user.register': { username: 'fz', email: 'bad', password: 'short' },
    'user.verifyToken': { token: 'garbage' },
    'ledger.restore': { backup: {} },
  };
  return { ...(table[name] ?? {}) };
}

// ---- random requests (fast-check, seeded) ----
const KEY_POOL = ['id', 'name', 'type', 'amount', 'asset', 'page', 'pageSize', '__proto__', 'constructor', 'prototype', 'toString', '', ' ', '\u0000', '$gt', 'a.b', '🔑'];
const stringPool = () =>
  fc.oneof(
    fc.constantFrom('', 'USD', 'expense', 'transfer', 'cash', 'Food', 'desktop', 'webhook', '\u0000', '\ud800', '\u202e', '\u200b', '../x', '%00', '1e400', 'NaN', '-0'),
    fc.nat().map((i) => {
      const real = Object.values(ids); // filled in beforeAll, read when a value is drawn
      return real[i % real.length] ?? 'none';
    }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ maxLength: 5000 }).map((s) => s.repeat(3)),
  );
const arbValue = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    stringPool(),
    fc.constantFrom(0, -0, -1, 1, 0.1, 1.005, 1e15, 1e21, 1e308, -1e308, 2 ** 53 + 1, 8_640_000_000_000_001),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...KEY_POOL), fc.string({ maxLength: 8 })), tie('value'), { maxKeys: 5 }),
  ),
})).value;

const arbActionName = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...FUZZED.map((a) => a.name)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('', ' ', 'user', 'user.', '.login', 'USER.LOGIN', 'user.login ', 'constructor', '__proto__.x', 'a'.repeat(500), 'sync.configure\u0000', 'toString'),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
);

function structuredParams(name: string) {
  const action = FUZZED.find((a) => a.name === name);
  const props = action ? Object.keys((action.params as Partial<TObject>).properties ?? {}) : [];
  if (props.length === 0) return fc.dictionary(fc.constantFrom(...KEY_POOL), arbValue, { maxKeys: 3 });
  // Mostly the declared names with valid-looking or random values, sometimes an extra key.
  return fc.record(Object.fromEntries(props.map((p) => [p, fc.oneof(arbValue, fc.constant(validParams(name)[p]))])), { requiredKeys: [] });
}

describe('random actions and params (fast-check, seeded)', () => {
  const randomCalls = (send: (name: string, params: unknown, token: string | undefined) => Promise<Answer>, seed: number, numRuns: number) =>
    fc.assert(
      fc.asyncProperty(
        arbActionName.chain((name) => fc.tuple(fc.constant(name), fc.oneof({ weight: 3, arbitrary: structuredParams(name) }, { weight: 1, arbitrary: arbValue }), fc.boolean())),
        async ([name, params, withToken]) => {
          if (OUTBOUND.has(name.trim()) || SELF_ENDING.has(name.trim())) return;
          await check(`${short(name)} ${short(params)}`, 'api', () => send(name, params, withToken ? token : undefined));
          return true;
        },
      ),
      { seed, numRuns, endOnFailure: true },
    );

  it('never answers 500, always an envelope, and refused requests change nothing', { timeout: 150_000 }, async () => {
    const before = findings.length;
    // The action pipeline in-process (fast, so many runs) …
    await randomCalls((name, params, auth) => t.api(name, params, auth), 20261121, Number(process.env.FUZZ_RUNS ?? 1500));
    // … and the same kind of calls over the wire, where the body is parsed by the HTTP router.
    await randomCalls((name, params, auth) => api(base, name, params, auth), 20261129, Number(process.env.FUZZ_WIRE_RUNS ?? 200));
    expect(findings.slice(before)).toEqual([]);
  });
});

// ---- raw HTTP against /api ----
describe('raw HTTP abuse of /api', () => {
  it('malformed JSON, wrong content types, oversized bodies, odd methods: 4xx envelopes, nothing changed', { timeout: 60_000 }, async () => {
    const before = findings.length;
    const snapshot = await snapshotOf(base, token);
    const auth = { authorization: `Bearer ${token}` };
    const json = { 'content-type': 'application/json', ...auth };
    const cases: Array<[string, RequestInit]> = [
      ['truncated JSON', { method: 'POST', headers: json, body: '{"action": "asset.create", "params": {"name": "x"' }],
      ['trailing garbage', { method: 'POST', headers: json, body: '{"action":"asset.query","params":{}} trailing' }],
      ['JSON array body', { method: 'POST', headers: json, body: '[{"action":"asset.query"}]' }],
      ['JSON null body', { method: 'POST', headers: json, body: 'null' }],
      ['JSON string body', { method: 'POST', headers: json, body: '"asset.query"' }],
      ['empty body', { method: 'POST', headers: json, body: '' }],
      ['BOM + JSON', { method: 'POST', headers: json, body: '\ufeff{"action":"asset.query","params":{}}' }],
      ['invalid UTF-8 bytes', { method: 'POST', headers: json, body: Buffer.from([0x7b, 0x22, 0x61, 0xff, 0xfe, 0x22, 0x7d]) }],
      ['lone surrogate escape', { method: 'POST', headers: json, body: '{"action":"category.create","params":{"name":"\\ud800","type":"expense","x":1}}' }],
      ['__proto__ key (raw)', { method: 'POST', headers: json, body: '{"action":"asset.create","params":{"name":"p","type":"cash","__proto__":{"isAdmin":true}}}' }],
      ['constructor.prototype (raw)', { method: 'POST', headers: json, body: '{"action":"asset.update","params":{"id":"x","constructor":{"prototype":{"polluted":1}}}}' }],
      ['top-level __proto__', { method: 'POST', headers: json, body: '{"__proto__":{"action":"asset.query"},"action":"asset.query","params":{}}' }],
      ['duplicate keys', { method: 'POST', headers: json, body: '{"action":"asset.query","action":"asset.delete","params":{"id":"x"}}' }],
      ['huge number', { method: 'POST', headers: json, body: '{"action":"asset.create","params":{"name":"n","type":"cash","balance":1e999}}' }],
      ['depth 10,000', { method: 'POST', headers: json, body: '{"action":"asset.query","params":' + '['.repeat(10_000) + ']'.repeat(10_000) + '}' }],
      ['1 MiB + 1 body', { method: 'POST', headers: json, body: JSON.stringify({ action: 'asset.query', params: { pad: 'x'.repeat(1024 * 1024) } }) }],
      ['10 MiB body', { method: 'POST', headers: json, body: 'x'.repeat(10 * 1024 * 1024) }],
      ['text/plain', { method: 'POST', headers: { 'content-type': 'text/plain', ...auth }, body: '{"action":"asset.query","params":{}}' }],
      ['form encoded', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...auth }, body: 'action=asset.query' }],
      ['multipart', { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x', ...auth }, body: '--x\r\n\r\n--x--' }],
      ['no content type', { method: 'POST', headers: auth, body: '{"action":"asset.query","params":{}}' }],
      ['latin1 charset', { method: 'POST', headers: { 'content-type': 'application/json; charset=latin1', ...auth }, body: '{"action":"asset.query","params":{}}' }],
      ['utf-16 charset', { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-16', ...auth }, body: '{"action":"asset.query","params":{}}' }],
      ['gzip encoding, not gzip', { method: 'POST', headers: { ...json, 'content-encoding': 'gzip' }, body: '{"action":"asset.query","params":{}}' }],
      ['unknown encoding', { method: 'POST', headers: { ...json, 'content-encoding': 'br, zstd, x-evil' }, body: '{"action":"asset.query","params":{}}' }],
      ['GET', { method: 'GET', headers: auth }],
      ['PUT', { method: 'PUT', headers: json, body: '{"action":"asset.query","params":{}}' }],
      ['DELETE', { method: 'DELETE', headers: json }],
      ['PATCH', { method: 'PATCH', headers: json, body: '{}' }],
      ['Authorization without Bearer', { method: 'POST', headers: { 'content-type': 'application/json', authorization: token }, body: '{"action":"asset.query","params":{}}' }],
      ['Bearer with spaces', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer a b c' }, body: '{"action":"asset.query","params":{}}' }],
      [
        'Bearer 8 KB',
        { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${'a'.repeat(8000)}` }, body: '{"action":"asset.query","params":{}}' },
      ],
      ['extra top-level field', { method: 'POST', headers: json, body: '{"action":"asset.query","params":{},"admin":true}' }],
      ['action is a number', { method: 'POST', headers: json, body: '{"action":5,"params":{}}' }],
      ['action is an object', { method: 'POST', headers: json, body: '{"action":{"toString":"x"},"params":{}}' }],
      ['params is an array', { method: 'POST', headers: json, body: '{"action":"asset.query","params":[1,2]}' }],
    ];
    for (const [label, init] of cases) {
      const answer = await check(`raw /api ${label}`, 'api', () => request(`${base}/api`, init, 20_000));
      if (label === 'GET' || label.startsWith('PUT') || label === 'DELETE' || label === 'PATCH') expect(answer.status, label).toBe(400);
      else expect(answer.status === 200 || (answer.status >= 400 && answer.status < 500), `${label}: ${answer.status} ${answer.message}`).toBe(true);
    }
    // Node refuses a request line or headers over 16 KB before any route: still an envelope.
    for (const [label, init, url] of [
      ['20 KB URL', { method: 'POST', headers: json, body: '{}' }, `${base}/api?${'x'.repeat(20_000)}`],
      ['20 KB header', { method: 'POST', headers: { ...json, 'x-pad': 'y'.repeat(20_000) }, body: '{}' }, `${base}/api`],
    ] as Array<[string, RequestInit, string]>) {
      const answer = await check(`raw /api ${label}`, 'api', () => request(url, init));
      expect(answer.status, label).toBe(431);
      expect(answer.message).toMatch(/larger than 16 KB/);
    }
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(findings.slice(before)).toEqual([]);
    expect(await snapshotOf(base, token)).toBe(snapshot);
    expect((await request(`${base}/healthz`)).status).toBe(200);
  });
});

// ---- /send ----
/** Percent-encodes the UTF-8 bytes of any string (lone surrogates become U+FFFD, as on the wire). */
const percent = (text: string) => [...Buffer.from(text, 'utf8')].map((b) => '%' + b.toString(16).padStart(2, '0')).join('');

/**
 * `/{appKey}` is also ntfy's publish path (PUT, a text body, ntfy headers): those requests answer in
 * ntfy's shapes — `{id, event: 'message', …}` or `{code: status × 100, http: status, error}`. Null for
 * a PennyPost envelope.
 */
function ntfyAnswer(path: string, answer: Answer): 'message' | 'error' | 'malformed' | null {
  const json = answer.json as Record<string, unknown> | null | undefined;
  if (path !== `/${appKey}` || !json || typeof json !== 'object' || !('http' in json || 'event' in json)) return null;
  if (json.event === 'message') return answer.status === 200 && typeof json.id === 'string' ? 'message' : 'malformed';
  return json.http === answer.status && json.code === answer.status * 100 && typeof json.error === 'string' && json.error !== '' ? 'error' : 'malformed';
}

describe('/send with random and hostile input', () => {
  const paths = () => [`/send/${appKey}`, `/${appKey}.send`, `/${appKey}`, `/send/${appKey}.send`];

  it('random query strings, JSON and form bodies on the four paths (fast-check, seeded)', { timeout: 120_000 }, async () => {
    const before = findings.length;
    const field = fc.oneof(
      fc.constantFrom('title', 'text', 'desp', 'short', 'channel', 'openid', '__proto__', 'constructor', 'title[]', 'title[a]', ''),
      fc.string({ maxLength: 10 }),
    );
    const scalar = fc.oneof(stringPool(), fc.string({ unit: 'binary', maxLength: 200 }), fc.constantFrom('x'.repeat(40_000), 'ok'));
    const arbSend = fc.record({
      path: fc.oneof(
        fc.constantFrom(...paths()),
        fc.constantFrom('/send/', '/send/.send', '/send/PP', `/send/${appKey}x`, `/send/${appKey.toLowerCase()}`, '/send/%00', '/send/..%2f..%2fapi', `/send/${'P'.repeat(3000)}`),
      ),
      method: fc.constantFrom('GET', 'POST', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'HEAD'),
      query: fc.array(fc.tuple(field, scalar), { maxLength: 4 }),
      body: fc.oneof(
        fc.constant(undefined),
        fc.dictionary(field, arbValue, { maxKeys: 4 }).map((o) => ({ type: 'application/json', text: JSON.stringify(o) })),
        fc.array(fc.tuple(field, scalar), { maxLength: 4 }).map((pairs) => ({ type: 'application/x-www-form-urlencoded', text: new URLSearchParams(pairs).toString() })),
        fc.tuple(fc.string({ maxLength: 200 }), fc.constantFrom('application/json', 'text/plain', 'application/xml', 'text/json')).map(([s, type]) => ({ type, text: s })),
      ),
    });
    await fc.assert(
      fc.asyncProperty(arbSend, async (c) => {
        const qs = c.query.length ? '?' + c.query.map(([k, v]) => `${percent(k)}=${percent(v)}`).join('&') : '';
        const init: RequestInit = { method: c.method };
        if (c.body && c.method !== 'GET' && c.method !== 'HEAD') init.body = c.body.text;
        if (c.body) init.headers = { 'content-type': c.body.type };
        const url = base + c.path + qs;
        const answer = await request(url, init, 15_000);
        if (c.method === 'OPTIONS' || c.method === 'HEAD') {
          if (answer.status >= 500) findings.push(`${c.method} ${c.path} → ${answer.status}`);
          return true;
        }
        if (answer.status === 404 && answer.raw !== undefined && !/^\/send\//.test(c.path)) return true; // not a webhook path at all
        const label = `/send ${c.method} ${short(c.path + qs)} ${short(init.body)}`;
        const ntfy = ntfyAnswer(c.path, answer);
        if (ntfy === null) wellFormed(label, answer, 'send');
        else if (ntfy === 'malformed' || answer.status >= 500) findings.push(`${label} → not an ntfy answer (HTTP ${answer.status}): ${short(answer.json)}`);
        if (answer.code === 0 || ntfy === 'message') await acceptChanges();
        else {
          const changed = await changesSinceLastLook();
          if (changed.length) findings.push(`/send ${c.method} ${c.path}${qs} refused (${answer.code}) but changed ${changed.join(', ')}`);
        }
        return true;
      }),
      { seed: 4242, numRuns: Number(process.env.FUZZ_RUNS ?? 600), endOnFailure: true },
    );
    expect(findings.slice(before)).toEqual([]);
  });

  it('raw hostile bodies on /send: 4xx envelopes, nothing sent, nothing recorded', { timeout: 60_000 }, async () => {
    const before = findings.length;
    const history = (await ok(base, 'push.queryMessages', { pageSize: 1 }, token)).total;
    const url = `${base}/send/${appKey}`;
    const cases: Array<[string, RequestInit]> = [
      ['truncated JSON', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title": "x"' }],
      ['JSON array', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '["title"]' }],
      ['JSON string', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '"title"' }],
      ['__proto__ key', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":"t","__proto__":{"x":1}}' }],
      ['nested title', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":{"toString":"x"}}' }],
      ['title array', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":["a","b"]}' }],
      ['depth 5,000', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":"t","desp":' + '['.repeat(5000) + ']'.repeat(5000) + '}' }],
      ['5 MB body', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 't', desp: 'x'.repeat(5 * 1024 * 1024) }) }],
      ['desp over the limit', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 't', desp: 'x'.repeat(200_000) }) }],
      [
        'form with 5,000 fields',
        { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: Array.from({ length: 5000 }, (_, i) => `f${i}=1`).join('&') },
      ],
      ['form title twice', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'title=a&title=b' }],
      ['query title twice', { method: 'GET' }],
      ['bad charset', { method: 'POST', headers: { 'content-type': 'application/json; charset=ebcdic' }, body: '{"title":"x"}' }],
      ['gzip claimed', { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: '{"title":"x"}' }],
      ['invalid UTF-8 in form', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: Buffer.from('title=%FF%FE%00') }],
      ['blank title', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":"   \\u200b"}' }],
    ];
    for (const [label, init] of cases) {
      const target = label === 'query title twice' ? `${url}?title=a&title=b` : url;
      const answer = await request(target, init, 20_000);
      wellFormed(`raw /send ${label}`, answer, 'send');
      // Undecodable bytes become U+FFFD (lenient, like every form parser): a title, so a push.
      const mayPass = label === 'blank title' || label === 'invalid UTF-8 in form';
      if (!(answer.status >= 400 && answer.status < 500) && !(mayPass && answer.status === 200)) findings.push(`raw /send ${label} → ${answer.status} ${answer.message}`);
      if (answer.code === 0) await acceptChanges();
    }
    // An empty key is still the webhook's: the /send envelope with CORS, not the generic 404 page.
    for (const path of ['/send/?title=x', '/send/.send?title=x']) {
      const empty = await request(base + path);
      expect(empty.status, path).toBe(404);
      expectRefusal(empty, pushErrors.rows.unknownAppKey);
      expect(empty.headers.get('access-control-allow-origin')).toBe('*');
    }
    expect(findings.slice(before)).toEqual([]);
    const after = (await ok(base, 'push.queryMessages', { pageSize: 1 }, token)).total;
    expect(after - history).toBeLessThanOrEqual(2); // only the two cases above may push
    expect(blocked).toEqual([]);
  });
});

describe('drop-in forms with random and hostile input', () => {
  it('Gotify, Bark, ntfy verbs and JSON, ServerChan³: their own shapes, never 5xx, refusals change nothing (fast-check, seeded)', { timeout: 120_000 }, async () => {
    const before = findings.length;
    await fc.assert(
      fc.asyncProperty(dropinCases(appKey), async (c) => {
        const qs = c.query.length ? '?' + c.query.map(([k, v]) => `${percent(k)}=${percent(v.slice(0, 500))}`).join('&') : '';
        const headers: Record<string, string> = { ...c.headers, ...(c.body?.type ? { 'content-type': c.body.type } : {}) };
        const body = c.body && c.method !== 'GET' && c.method !== 'HEAD' ? c.body.text : undefined;
        const answer = await request(base + c.path + qs, { method: c.method, headers, body }, 15_000);
        const label = `${c.form} ${c.method} ${short(c.path + qs)} ${short(c.headers)} ${short(body)}`;
        if (answer.status >= 500) findings.push(`${label} → HTTP ${answer.status}: ${short(answer.json ?? answer.raw)}`);
        const leak = leakProblem(answer.raw ?? JSON.stringify(answer.json), [token]);
        if (leak) findings.push(`${label} → ${leak}`);
        if (c.method === 'OPTIONS' || c.method === 'HEAD') return true;
        const fits = (shape: Shape) => shapeProblem(shape, answer, c.method) === null && (shape !== 'envelope' || (answer.raw === undefined && wellFormedNow(label, answer)));
        const shape = c.shapes.find(fits) ?? null;
        if (shape === null)
          findings.push(
            `${label} → not ${c.shapes.join(' / ')} (HTTP ${answer.status}): ${c.shapes.map((s) => shapeProblem(s, answer, c.method)).join('; ')} ${short(answer.json ?? answer.raw)}`,
          );
        if (accepted(shape, answer)) await acceptChanges();
        else {
          const changed = await changesSinceLastLook();
          if (changed.length) findings.push(`${label} refused (HTTP ${answer.status}) but changed ${changed.join(', ')}`);
        }
        return true;
      }),
      { seed: 2026112320, numRuns: Number(process.env.FUZZ_DROPIN_RUNS ?? 400), endOnFailure: true },
    );
    expect(findings.slice(before)).toEqual([]);
    expect(blocked).toEqual([]);
  });
});

/** wellFormed's verdict without recording a finding (an envelope is one of several shapes a drop-in answer may take). */
function wellFormedNow(label: string, answer: Answer): boolean {
  const count = findings.length;
  wellFormed(label, answer, 'send');
  return findings.splice(count).length === 0;
}

describe('the server after all of it', () => {
  it('is up, answers, and the fuzzing user still sees consistent balances', async () => {
    expect((await request(`${base}/healthz`)).status).toBe(200);
    expect(await ok(base, 'asset.checkBalances', {}, token)).toMatchObject({ ok: true });
    expect(blocked).toEqual([]);
  });
});

export type { TSchema };
