/**
 * Auth abuse beyond server/users/users.test.ts (which covers user.verifyToken with forged
 * tokens, sequential lockout and logout): forged and stale tokens used on real actions and on
 * the non-/api routes, another user's ids on every action that takes an id (driven by the action
 * registry, so a new action is covered the day it is added), concurrent password guessing, and
 * guessing app keys and short-link codes.
 */
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TObject } from '@sinclair/typebox';
import { allDomains } from '../domains';
import { actionsOf } from '../domain';
import { ManualClock } from '../lib/clock';
import { startTestServer, type TestServer } from '../test-support/test-server';
import { api, newUser, ok, request, snapshotOf } from './helpers';
import { commonErrors } from '../lib/errors';
import { filesErrors } from '../files/errors';
import { savingsErrors } from '../savings/errors';
import { ledgerErrors } from '../ledger/errors';
import { usersErrors } from '../users/errors';
import { expectRefusal } from '../test-support/refusal';

const clock = new ManualClock(Date.now());
let t: TestServer;
let base: string;

beforeAll(async () => {
  t = await startTestServer({
    clock,
    settings: { rateLimit: { apiPerToken: 1_000_000 }, push: { sendPerAppKey: 1_000_000, sendPerAddress: 25 }, links: { missesPerAddress: 10 } },
  });
  base = t.url;
});
afterAll(() => t.close());

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('forged, expired and revoked tokens on real actions', () => {
  it('every forgery answers 401 on /api actions, the push feed and file bytes, and writes nothing', async () => {
    const victim = await newUser(base, 'victim');
    const attacker = await newUser(base, 'attacker');
    const asset = await ok(base, 'asset.create', { name: 'Victim savings', type: 'savings', currency: 'USD', balance: 100 }, victim.token);
    const before = await snapshotOf(base, victim.token);
    const parts = victim.token.split('.');
    expect(parts).toHaveLength(3);
    const [header, payload, signature] = parts as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const attackerClaims = JSON.parse(Buffer.from(attacker.token.split('.').at(1)!, 'base64url').toString());
    const key = t.server.app.secrets.get('jwt');
    const forged: Record<string, string> = {
      'alg none': `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`,
      'alg none, uppercase': `${b64({ alg: 'NONE', typ: 'JWT' })}.${payload}.`,
      'no signature': `${header}.${payload}.`,
      'wrong key': jwt.sign(claims, 'guessed-secret', { algorithm: 'HS256', noTimestamp: true }),
      'changed payload, old signature': `${header}.${b64({ ...claims, exp: (claims.exp as number) + 3600 })}.${signature}`,
      'attacker sub, victim session, right key': jwt.sign({ ...attackerClaims, sid: claims.sid }, key, { algorithm: 'HS256', noTimestamp: true }),
      'victim sub, attacker session, right key': jwt.sign({ ...claims, sid: attackerClaims.sid }, key, { algorithm: 'HS256', noTimestamp: true }),
      'HS512 with the right key': jwt.sign(claims, key, { algorithm: 'HS512', noTimestamp: true }),
      'made-up session, right key': jwt.sign({ ...claims, sid: 'x'.repeat(22) }, key, { algorithm: 'HS256', noTimestamp: true }),
      'sub not a string': jwt.sign({ ...claims, sub: { $ne: null } }, key, { algorithm: 'HS256', noTimestamp: true }),
      'four segments': `${victim.token}.extra`,
      'header only': header,
      garbage: 'eyJ.eyJ.eyJ',
    };
    for (const [label, token] of Object.entries(forged)) {
      for (const [action, params] of [
        ['asset.query', {}],
        ['asset.detail', { id: asset.id }],
        ['accounting.create', { type: 'expense', amount: 5, asset: asset.id, category: 'Food' }],
        ['ledger.backup', {}],
        ['push.createChannel', { name: 'x', type: 'desktop' }],
      ] as const) {
        const answer = await api(base, action, params, token);
        expect(`${label} ${action}: ${answer.status} ${answer.code}`).toBe(`${label} ${action}: 401 401`);
        expect(JSON.stringify(answer.data ?? null)).not.toContain('Victim savings');
      }
      const feed = await request(`${base}/events/push?token=${encodeURIComponent(token)}`, {}, 5000);
      expect(feed.status, `${label} on /events/push`).toBe(401);
      const file = await request(`${base}/files/whatever`, { headers: { authorization: `Bearer ${token}` } }, 5000);
      expect(file.status, `${label} on /files`).toBeGreaterThanOrEqual(400);
      expect(file.status).toBeLessThan(500);
    }
    expect(await snapshotOf(base, victim.token)).toBe(before);
  });

  it('an expired token answers 1003 everywhere, a revoked one 401, and neither writes', async () => {
    const user = await newUser(base, 'stale');
    const asset = await ok(base, 'asset.create', { name: 'Mine', type: 'cash', currency: 'USD', balance: 10 }, user.token);
    const second = (await ok(base, 'user.login', { email: user.email, password: user.password, deviceId: 'two' })).token as string;
    expect((await api(base, 'user.logout', {}, user.token)).code).toBe(200);
    for (const action of ['asset.query', 'accounting.create', 'user.logout']) {
      const revoked = await api(base, action, { ...(action === 'accounting.create' ? { type: 'expense', amount: 1, asset: asset.id } : {}) }, user.token);
      expect(`${action} ${revoked.status} ${revoked.code}`).toBe(`${action} 401 401`);
    }
    expectRefusal(await request(`${base}/events/push`, { headers: { authorization: `Bearer ${user.token}` } }, 5000), usersErrors.rows.sessionSignedOut);
    // The other session lives on, until it expires.
    expect((await api(base, 'asset.query', {}, second)).code).toBe(200);
    clock.advance(7 * 24 * 3600 * 1000 + 1000);
    for (const action of ['asset.query', 'accounting.create', 'push.queryMessages']) {
      const expired = await api(base, action, action === 'accounting.create' ? { type: 'expense', amount: 1, asset: asset.id } : {}, second);
      expectRefusal(expired, usersErrors.rows.tokenExpired, { label: action });
    }
    const fresh = (await ok(base, 'user.login', { email: user.email, password: user.password })).token as string;
    expect((await ok(base, 'accounting.query', {}, fresh)).total).toBe(0);
  });
});

describe("another user's ids on every action", () => {
  const ACTIONS = actionsOf(allDomains());
  /** Which kind of resource an id-like param names, by param name (and action group for `id`). */
  function kindOf(action: string, param: string): string | null {
    const [group, method = ''] = action.split('.');
    if (param === 'id') {
      if (group === 'asset') return 'asset';
      if (group === 'accounting') return 'record';
      if (group === 'category') return 'category';
      if (group === 'shortlink') return 'link';
      if (group === 'savings') return 'goal';
      if (group === 'push') {
        if (/Channel$/.test(method)) return 'channel';
        if (/App$|AppKey$/.test(method)) return 'app';
        if (/Recipient$/.test(method)) return 'recipient';
        if (/Message$/.test(method)) return 'message';
        if (/Scheduled$/.test(method)) return 'scheduled';
      }
      if (group === 'currency') return 'rate';
      if (group === 'budget') return 'budget';
      if (group === 'recurring') return 'recurring';
      if (group === 'rule') return 'rule';
      if (group === 'inbox') return 'draft';
      if (group === 'import') return 'interrupted';
      return null;
    }
    if (['asset', 'fromAsset', 'toAsset', 'assetId'].includes(param)) return 'asset';
    if (param === 'uploadId') return 'upload';
    if (param === 'appId') return 'app';
    if (param === 'goalId') return 'goal';
    if (param === 'channelId') return 'channel';
    if (param === 'fileId') return 'file';
    if (param === 'attachments') return 'file';
    if (param === 'moveTo') return 'categoryRef';
    if (param === 'code' && group === 'shortlink') return 'linkCode';
    if (param === 'conflictId') return 'conflict';
    return null;
  }
  const ID_LIKE = /^(id|.+Id|asset|fromAsset|toAsset|attachments|moveTo)$/;
  const NOT_FOUND: Record<string, number[]> = {
    asset: [ledgerErrors.rows.assetNotFound.code],
    record: [ledgerErrors.rows.recordNotFound.code],
    goal: [savingsErrors.rows.goalNotFound.code],
    file: [filesErrors.rows.fileNotFound.code],
    category: [404],
    /** category.delete moveTo: documented as 400 "moveTo is unknown" (a name or id of your own categories). */
    categoryRef: [400],
    link: [404],
    linkCode: [404],
    channel: [404],
    app: [404],
    recipient: [404],
    message: [404],
    scheduled: [404],
    rate: [404],
    conflict: [404],
    budget: [404],
    recurring: [404],
    rule: [404],
    draft: [404],
    upload: [404],
    interrupted: [404],
  };

  it('answers the not-found code of the resource, never the owner’s data, and changes nothing of theirs', { timeout: 60_000 }, async () => {
    const alice = await newUser(base, 'alice');
    const mallory = await newUser(base, 'mallory');
    const SECRET = 'AliceOnly';
    const A: Record<string, string> = {};
    A.asset = (await ok(base, 'asset.create', { name: `${SECRET} bank`, type: 'debit_card', currency: 'USD', balance: 1000, description: SECRET }, alice.token)).id;
    const asset2 = (await ok(base, 'asset.create', { name: `${SECRET} cash`, type: 'cash', currency: 'USD', balance: 50 }, alice.token)).id;
    A.record = (await ok(base, 'accounting.create', { type: 'expense', amount: 7, asset: A.asset, category: 'Food', description: SECRET }, alice.token)).id;
    await ok(base, 'accounting.create', { type: 'transfer', amount: 3, fromAsset: A.asset, toAsset: asset2, description: SECRET }, alice.token);
    A.category = (await ok(base, 'category.create', { name: `${SECRET}cat`, type: 'expense' }, alice.token)).id;
    A.goal = (await ok(base, 'savings.createGoal', { title: `${SECRET} goal`, targetAmount: 100, endDate: clock.now() + 40 * 86_400_000 }, alice.token)).id;
    const link = await ok(base, 'shortlink.create', { url: 'https://example.com/alice', title: SECRET, isPublic: false }, alice.token);
    A.link = link.id;
    A.linkCode = link.code;
    const channel = await ok(base, 'push.createChannel', { name: `${SECRET} hook`, type: 'webhook', config: { format: 'json', url: 'https://alice.example/hooks' } }, alice.token);
    A.channel = channel.id;
    const app = await ok(base, 'push.createApp', { name: `${SECRET} app`, channelId: channel.id }, alice.token);
    A.app = app.id;
    A.recipient = (await ok(base, 'push.addRecipient', { appId: app.id, address: 'alice-hook' }, alice.token)).id;
    const desk = await ok(base, 'push.createChannel', { name: 'desk', type: 'desktop' }, alice.token);
    const deskApp = await ok(base, 'push.createApp', { name: 'desk app', channelId: desk.id }, alice.token);
    A.message = (await request(`${base}/send/${deskApp.appKey}?title=${SECRET}`)).data.pushId;
    A.scheduled = (await request(`${base}/send/${deskApp.appKey}?title=${SECRET}&delay=1h`)).data.pushId;
    const upload = await ok(base, 'file.upload', { fileName: 'r.txt', fileType: 'text/plain', fileSize: 5 }, alice.token);
    expect((await request(new URL(upload.uploadUrl, base).toString(), { method: 'PUT', body: 'hello' })).code).toBe(200);
    A.file = upload.fileId;
    await ok(base, 'accounting.update', { id: A.record, attachments: [A.file] }, alice.token);
    A.rate = 'unused';
    A.budget = (await ok(base, 'budget.create', { name: `${SECRET} budget`, categories: 'all', amount: 50, startMonth: '2026-01' }, alice.token)).id;
    // A sync conflict in Alice's log, as the replication records it (server/sync/conflict-log.ts).
    const recordDoc = (await t.server.app.db.collection('records').findOne(A.record).exec())!.toJSON() as Record<string, any>;
    const conflictBase = { ...recordDoc, _deleted: false };
    await t.server.app.services.syncConflicts.record(alice.id, 'records', 'id', {
      assumedMasterState: conflictBase,
      realMasterState: { ...conflictBase, description: `${SECRET} phone`, updatedAt: (recordDoc.updatedAt as number) + 1 },
      newDocumentState: { ...conflictBase, description: `${SECRET} laptop`, updatedAt: (recordDoc.updatedAt as number) + 2 },
    });
    A.conflict = (await ok(base, 'sync.conflicts', {}, alice.token)).list[0].id;
    A.recurring = (
      await ok(
        base,
        'recurring.create',
        {
          template: { type: 'expense', amount: 5, category: 'Food', asset: A.asset, description: SECRET },
          rule: { freq: 'monthly' },
          startDate: clock.now() + 86_400_000,
          mode: 'confirm',
        },
        alice.token,
      )
    ).id;
    // Issue 22: a rule, an inbox draft and an unfinished statement upload of Alice's.
    A.rule = (await ok(base, 'rule.create', { match: { field: 'payee', op: 'contains', value: SECRET }, set: { description: SECRET } }, alice.token)).id;
    const inbox = await ok(base, 'inbox.getKey', {}, alice.token);
    await request(`${base}/in/${inbox.inboxKey}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ amount: 3, merchant: SECRET }) });
    A.draft = (await ok(base, 'inbox.query', {}, alice.token)).list[0].id;
    // An import of Alice's that a crash cut off (the journal a commit leaves when the process dies; import-crash.test.ts makes one with a real kill).
    const journal = t.server.app.services.imports.journal;
    A.interrupted = await journal.begin(alice.id, { format: 'csv', account: SECRET, newCategories: [] }, []);
    journal.release(A.interrupted);
    A.upload = (await ok(base, 'import.upload', { content: Buffer.from(`Date,Payee,Amount\n2026-01-01,${SECRET},-1\n`).toString('base64') }, alice.token)).uploadId;

    // Mallory has her own things of each kind, so her requests are otherwise valid.
    const M: Record<string, string> = {};
    M.asset = (await ok(base, 'asset.create', { name: 'M bank', type: 'debit_card', currency: 'USD', balance: 1000 }, mallory.token)).id;
    M.asset2 = (await ok(base, 'asset.create', { name: 'M cash', type: 'cash', currency: 'USD', balance: 1000 }, mallory.token)).id;
    M.record = (await ok(base, 'accounting.create', { type: 'expense', amount: 1, asset: M.asset, category: 'Food' }, mallory.token)).id;
    M.transfer = (await ok(base, 'accounting.create', { type: 'transfer', amount: 1, fromAsset: M.asset, toAsset: M.asset2 }, mallory.token)).id;
    M.category = (await ok(base, 'category.create', { name: 'Mcat', type: 'expense' }, mallory.token)).id;
    await ok(base, 'accounting.create', { type: 'expense', amount: 1, asset: M.asset, category: 'Mcat' }, mallory.token);
    M.goal = (await ok(base, 'savings.createGoal', { title: 'M goal', targetAmount: 100, endDate: clock.now() + 40 * 86_400_000 }, mallory.token)).id;
    M.channel = (await ok(base, 'push.createChannel', { name: 'M desk', type: 'desktop' }, mallory.token)).id;
    M.app = (await ok(base, 'push.createApp', { name: 'M app', channelId: M.channel }, mallory.token)).id;

    const before = await snapshotOf(base, alice.token);
    const base2 = (action: string): Record<string, unknown> => {
      const plausible: Record<string, Record<string, unknown>> = {
        'accounting.create': { type: 'expense', amount: 1, asset: M.asset, category: 'Food' },
        'accounting.update': { id: M.record, description: 'x' },
        'asset.update': { name: 'x' },
        'shortlink.update': { title: 'x' },
        'savings.updateGoal': { title: 'x' },
        'push.updateChannel': { name: 'x' },
        'category.delete': { id: M.category },
        'category.update': { id: M.category, name: 'x' },
        'push.addRecipient': { appId: M.app, address: 'x' },
        'push.createApp': { name: 'x', channelId: M.channel },
        'push.updateApp': { id: M.app, name: 'x' },
        'savings.updateProgress': { goalId: M.goal, amount: 1 },
        'file.delete': { fileId: 'none' },
        'shortlink.query': {},
        'notify.configure': { events: { budget80: true } },
        'recurring.update': { name: 'x' },
        'recurring.skip': { date: '2030-01-01' },
        'recurring.confirm': { date: '2030-01-01' },
        'import.preview': { format: 'csv', content: Buffer.from('Date,Amount\n2026-01-01,-1\n').toString('base64'), assetId: M.asset, mapping: { date: 0, amount: 1 } },
        'import.upload': { content: Buffer.from('x').toString('base64') },
      };
      return { ...(plausible[action] ?? {}) };
    };

    const covered: string[] = [];
    const unmapped: string[] = [];
    for (const action of ACTIONS) {
      if (action.auth !== 'user') continue;
      const props = Object.keys((action.params as Partial<TObject>).properties ?? {}); // a OneOf params schema has none
      for (const param of props.filter((p) => ID_LIKE.test(p) || (p === 'code' && action.name.startsWith('shortlink.')))) {
        const kind = kindOf(action.name, param);
        // Shared, not owned by anyone: market symbols, WeChat template ids.
        if (param === 'stockId' || param === 'templateId') continue;
        if (!kind) {
          unmapped.push(`${action.name}.${param}`);
          continue;
        }
        if (kind === 'rate') continue; // exchange rates are keyed by currency pair, not by a guessable id
        const theirs = param === 'attachments' ? [A.file] : kind === 'categoryRef' ? A.category : A[kind];
        const params: Record<string, unknown> = { ...base2(action.name), [param]: theirs };
        if (action.name === 'accounting.create' && param === 'toAsset') Object.assign(params, { type: 'transfer', fromAsset: M.asset, asset: undefined, category: undefined });
        if (action.name === 'accounting.create' && param === 'fromAsset') Object.assign(params, { type: 'transfer', toAsset: M.asset, asset: undefined, category: undefined });
        if (action.name === 'accounting.create' && param === 'attachments') params.asset = M.asset;
        if (action.name === 'category.delete' && param === 'moveTo') params.id = M.category;
        if (action.name === 'accounting.update' && (param === 'fromAsset' || param === 'toAsset')) params.id = M.transfer;
        const answer = await api(base, action.name, params, mallory.token);
        const label = `${action.name} ${param}=<alice's ${kind}> → ${answer.status} ${answer.code} ${answer.message}`;
        covered.push(label);
        expect(JSON.stringify(answer.data ?? null), label).not.toContain(SECRET);
        expect(answer.message, label).not.toContain(SECRET);
        const isListing = /\.(query|list)[A-Z]?|queryMessages|queryApps|queryRecipients|queryChannels/.test(action.name) && param !== 'id';
        if (isListing && answer.code === 200) {
          expect(answer.data.total ?? answer.data.list?.length ?? 0, label).toBe(0);
        } else {
          expect(NOT_FOUND[kind], label).toContain(answer.code);
        }
      }
    }
    expect(unmapped, 'id-like params without a resource kind: map them in kindOf()').toEqual([]);
    expect(covered.length).toBeGreaterThan(35);
    // Alice's private short link looks unknown to Mallory over HTTP too.
    expect((await request(`${base}/s/${link.code}`, { headers: { authorization: `Bearer ${mallory.token}` }, redirect: 'manual' })).status).toBe(404);
    // Her file bytes are not served to Mallory.
    const bytes = await request(`${base}/files/${upload.fileId}`, { headers: { authorization: `Bearer ${mallory.token}` } });
    expectRefusal(bytes, filesErrors.rows.fileNotFound);
    expect(bytes.raw ?? '').not.toContain('hello');
    expect(await snapshotOf(base, alice.token)).toBe(before);
    // Her interrupted import is still hers to finish or forget.
    expect((await ok(base, 'import.interrupted', {}, alice.token)).imports.map((item: { id: string }) => item.id)).toEqual([A.interrupted]);
    // Her scheduled push still waits.
    expect((await ok(base, 'push.queryScheduled', {}, alice.token)).list.map((p: { id: string }) => p.id)).toEqual([A.scheduled]);
  });
});

describe('password guessing', () => {
  it('50 concurrent wrong guesses: at most 5 are checked, the account locks, and the right password is refused while locked', async () => {
    const user = await newUser(base, 'brute');
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => api(base, 'user.login', { email: user.email, password: `wrong-guess-${i}` })));
    const codes = answers.map((a) => a.code);
    const wrong = usersErrors.rows.invalidCredentials.code;
    const locked = usersErrors.rows.accountLocked.code;
    expect(codes.filter((c) => c === wrong).length).toBeLessThanOrEqual(4);
    expect(codes.filter((c) => c === locked).length).toBeGreaterThanOrEqual(46);
    expect(codes.every((c) => c === wrong || c === locked)).toBe(true);
    const right = await api(base, 'user.login', { email: user.email, password: user.password });
    expectRefusal(right, usersErrors.rows.accountLocked);
    clock.advance(15 * 60_000 + 1000);
    expect((await api(base, 'user.login', { email: user.email, password: user.password })).code).toBe(200);
  });
});

describe('guessing app keys and short-link codes', () => {
  it('app keys: misses answer 404 until the per-address limit, then 429 for every key, real ones included', async () => {
    const user = await newUser(base, 'keys');
    const channel = await ok(base, 'push.createChannel', { name: 'd', type: 'desktop' }, user.token);
    const app = await ok(base, 'push.createApp', { name: 'real', channelId: channel.id }, user.token);
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    const guess = (i: number) => 'PP' + Array.from({ length: 24 }, (_, j) => alphabet[(i * 31 + j * 17) % 62]).join('');
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await request(`${base}/send/${guess(i)}?title=x`)).status);
    expect(statuses.slice(0, 25).every((s) => s === 404 || s === 429)).toBe(true);
    expect(statuses.filter((s) => s === 404).length).toBeLessThanOrEqual(25);
    const limited = await request(`${base}/send/${app.appKey}?title=real`);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expectRefusal(limited, commonErrors.rows.rateLimited);
  });

  it('short-link codes: 100 concurrent misses, at most the limit (10) answered 404, the rest 429', async () => {
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => request(`${base}/s/zz${String(i).padStart(5, '0')}`, { redirect: 'manual' })));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 404).length).toBeLessThanOrEqual(10);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(90);
  });
});
