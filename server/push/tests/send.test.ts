import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPushServer, type PushTestServer } from './helpers';
import { expectRefusal } from '../../test-support/refusal';
import { pushErrors } from '../errors';

let t: PushTestServer;
let appKey: string;
let appId: string;
beforeAll(async () => {
  t = await startPushServer({ settings: { push: { titleMaxLength: 40, despMaxLength: 1000 } } });
  ({ appKey, appId } = await t.setup({ type: 'desktop' }));
});
afterAll(() => t.close());

const pushCount = async () => (await t.call('push.queryMessages', { appId, pageSize: 1 })).data.total as number;

function expectCors(headers: Headers) {
  expect(headers.get('access-control-allow-origin')).toBe('*');
  expect(headers.get('cross-origin-resource-policy')).toBe('cross-origin');
}

describe('the four paths, GET and POST, query / JSON / form', () => {
  const paths = (key: string) => [`/send/${key}`, `/${key}.send`, `/${key}`, `/send/${key}.send`];

  it('pushes through every path and input form, each answer ServerChan-shaped with CORS', async () => {
    let n = 0;
    for (const path of paths(appKey)) {
      const variants: Array<{ method: string; query?: Record<string, string>; json?: any; form?: Record<string, string> }> = [
        { method: 'GET', query: { title: `q${++n}`, desp: 'from query' } },
        { method: 'POST', json: { title: `j${++n}`, desp: 'from json' } },
        { method: 'POST', form: { title: `f${++n}`, desp: 'from form' } },
        { method: 'POST', query: { title: `pq${++n}` } },
      ];
      for (const init of variants) {
        const answer = await t.push(path, init);
        expect(answer.status, `${path} ${JSON.stringify(init)}`).toBe(200);
        expectCors(answer.headers);
        expect(answer.body).toMatchObject({ code: 0, message: 'Delivered.', data: { total: 1, success: 1, failed: 0 } });
        // PennyPost's fields, and ServerChan's beside them (docs/push.md "Drop-in for other push clients").
        expect(Object.keys(answer.body.data).sort()).toEqual(['errno', 'error', 'failed', 'pushId', 'pushid', 'readkey', 'results', 'success', 'total', 'url']);
        expect(answer.body.data.results).toEqual([{ recipient: 'desktop', name: 'This computer', ok: true, class: 'ok', msgId: answer.body.data.pushId, attempts: 1 }]);
        const stored = await t.call('push.getMessage', { id: answer.body.data.pushId });
        const expected = init.query?.title ?? init.json?.title ?? init.form?.title;
        expect(stored.data.title).toBe(expected);
      }
    }
    expect(await pushCount()).toBe(16);
  });

  it('accepts text as an alias of title, JSON bodies over query values, numbers as text, and charset parameters', async () => {
    const alias = await t.push(`/send/${appKey}`, { json: { text: 'via text', desp: 'd' } });
    expect((await t.call('push.getMessage', { id: alias.body.data.pushId })).data).toMatchObject({ title: 'via text', desp: 'd' });
    const emptyTitle = await t.push(`/send/${appKey}`, { form: { title: '', text: 'text wins over an empty title' } });
    expect((await t.call('push.getMessage', { id: emptyTitle.body.data.pushId })).data.title).toBe('text wins over an empty title');
    const bothGiven = await t.push(`/send/${appKey}`, { form: { title: 'title wins', text: 'ignored' } });
    expect((await t.call('push.getMessage', { id: bothGiven.body.data.pushId })).data.title).toBe('title wins');
    const both = await t.push(`/send/${appKey}`, { query: { title: 'from query' }, json: { title: 'from body' } });
    expect((await t.call('push.getMessage', { id: both.body.data.pushId })).data.title).toBe('from body');
    const numeric = await t.push(`/send/${appKey}`, { json: { title: 42 } });
    expect((await t.call('push.getMessage', { id: numeric.body.data.pushId })).data.title).toBe('42');
    const charset = await t.push(`/send/${appKey}`, { json: { title: '中文标题' }, headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect((await t.call('push.getMessage', { id: charset.body.data.pushId })).data.title).toBe('中文标题');
  });

  it('a ServerChan client (form-urlencoded text + desp POSTed to /{key}.send) works unchanged', async () => {
    const res = await fetch(`${t.url}/${appKey}.send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'text=' + encodeURIComponent('服务器报警') + '&desp=' + encodeURIComponent('**CPU** 99%\n\n- disk ok'),
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.code).toBe(0);
    expect(body.data.success).toBe(1);
    const stored = await t.call('push.getMessage', { id: body.data.pushId });
    expect(stored.data).toMatchObject({ title: '服务器报警', desp: '**CPU** 99%\n\n- disk ok', status: 'success' });
  });
});

describe('multipart/form-data (curl -F)', () => {
  it('reads the text fields of a multipart body and ignores file parts', async () => {
    const form = new FormData();
    form.append('title', 'disk almost full');
    form.append('desp', '*92%* used');
    form.append('attachment', new Blob(['ignored bytes']), 'log.txt');
    const res = await fetch(`${t.url}/send/${appKey}`, { method: 'POST', body: form });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.code).toBe(0);
    const stored = await t.call('push.getMessage', { id: body.data.pushId });
    expect(stored.data).toMatchObject({ title: 'disk almost full', desp: '*92%* used' });
    const broken = await fetch(`${t.url}/send/${appKey}`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
      body: '--xyz\r\nContent-Disposition: form-data; name="title"\r\n\r\nunterminated',
    });
    expect(broken.status).toBe(400);
    expect((await broken.json()).message).toMatch(/multipart/);
  });
});

describe('OPTIONS, HEAD and other methods', () => {
  it('answers OPTIONS with 204 and CORS on every path and pushes nothing', async () => {
    const before = await pushCount();
    for (const path of [`/send/${appKey}`, `/${appKey}.send`, `/${appKey}`, `/send/${appKey}.send`, '/send/not-a-key']) {
      const res = await t.fetch(path + '?title=preflight', { method: 'OPTIONS', headers: { Origin: 'https://example.org', 'Access-Control-Request-Method': 'POST' } });
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-methods')).toContain('POST');
      expect(await res.text()).toBe('');
    }
    const head = await t.fetch(`/send/${appKey}?title=head`, { method: 'HEAD' });
    expect(head.status).toBe(204);
    expect(await pushCount()).toBe(before);
  });

  it('refuses PUT/DELETE with a 400 envelope that names the allowed methods', async () => {
    const res = await t.push(`/send/${appKey}`, { method: 'PUT', json: { title: 'x' } });
    expect(res.status).toBe(400);
    expect(res.headers.get('allow')).toBe('GET, POST, OPTIONS');
    expectCors(res.headers);
    expect(res.body.message).toMatch(/Use GET/);
  });
});

describe('validation, unknown keys and empty apps', () => {
  it('refuses a missing, empty or blank title with 400 before looking up the key', async () => {
    for (const init of [{ query: {} }, { query: { title: '' } }, { json: { title: '   ', desp: 'x' } }, { form: { desp: 'only desp' } }, { json: { title: null } }]) {
      const res = await t.push(`/send/${appKey}`, init as any);
      expect(res.status, JSON.stringify(init)).toBe(400);
      expect(res.body).toMatchObject({ code: 400, data: { field: 'title' } });
      expect(res.body.message).toMatch(/title is required/);
      expectCors(res.headers);
    }
    // validation comes first: an unknown key with no title is a 400, not a 404
    const unknown = await t.push('/send/PPunknownunknownunknown0000');
    expect(unknown.status).toBe(400);
  });

  it('enforces the title and desp length limits (settings) and refuses repeated or structured fields', async () => {
    const long = await t.push(`/send/${appKey}`, { json: { title: 'x'.repeat(41) } });
    expect(long.status).toBe(400);
    expect(long.body.message).toMatch(/title is longer than 40 characters \(41\)/);
    const okTitle = await t.push(`/send/${appKey}`, { json: { title: 'x'.repeat(40), desp: 'y'.repeat(1000) } });
    expect(okTitle.status).toBe(200);
    const longDesp = await t.push(`/send/${appKey}`, { json: { title: 't', desp: 'y'.repeat(1001) } });
    expect(longDesp.status).toBe(400);
    expect(longDesp.body.data.field).toBe('desp');
    const twice = await t.fetch(`/send/${appKey}?title=a&title=b`);
    expect(twice.status).toBe(400);
    expect((await twice.json()).message).toMatch(/more than once/);
    const object = await t.push(`/send/${appKey}`, { json: { title: { a: 1 } } });
    expect(object.status).toBe(400);
    const array = await t.push(`/send/${appKey}`, { json: '[1,2]' });
    expect(array.status).toBe(400);
    const malformed = await t.push(`/send/${appKey}`, { json: '{"title": ' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toMatch(/Malformed JSON/);
    expectCors(malformed.headers);
    const polluted = await t.push(`/send/${appKey}`, { json: '{"title":"x","__proto__":{"admin":true}}' });
    expect(polluted.status).toBe(400);
  });

  it('answers 404 with CORS for unknown keys in every path form, and pushes nothing', async () => {
    const before = await pushCount();
    for (const path of ['/send/PPunknownunknownunknown0000', '/PPunknownunknownunknown0000.send', '/PPunknownunknownunknown0000', '/send/not-even-a-key']) {
      const res = await t.push(path, { query: { title: 'x' } });
      expectRefusal({ status: res.status, ...res.body }, pushErrors.rows.unknownAppKey, { label: path });
      expect(res.body.message).toMatch(/Unknown app key/);
      expectCors(res.headers);
    }
    expect(await pushCount()).toBe(before);
  });

  it('answers code 0 with total 0 and a message for an app without recipients, and records it', async () => {
    const empty = await t.setup({ type: 'webhook', config: { format: 'json', url: 'http://127.0.0.1:9' } });
    const res = await t.push(`/send/${empty.appKey}`, { query: { title: 'nobody' } });
    expect(res.status).toBe(200);
    expect(res.body.code).toBe(0);
    expect(res.body.data).toMatchObject({ total: 0, success: 0, failed: 0, results: [] });
    expect(res.body.message).toMatch(/has no recipients yet.*push.addRecipient/);
    const history = await t.call('push.queryMessages', { appId: empty.appId });
    expect(history.data.list[0]).toMatchObject({ status: 'empty', total: 0 });
  });
});

describe('the catch-all routes shadow nothing else', () => {
  it('leaves /, /healthz, /api, /m/ and other single-segment paths alone', async () => {
    expect((await t.fetch('/healthz')).status).toBe(200);
    const api = await t.fetch('/api', { method: 'GET' });
    expect((await api.json()).message).toMatch(/Use POST \/api/);
    for (const path of ['/PPshort', '/PPhasaninvalid-character00000', '/XXaaaaaaaaaaaaaaaaaaaaaaaa', '/index.html.send']) {
      const res = await t.fetch(path + '?title=x');
      expect(res.headers.get('access-control-allow-origin'), path).toBeNull();
    }
    const root = await t.fetch('/');
    expect(root.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('rate limits', () => {
  it('limits pushes per app key and per caller address with 429, Retry-After and CORS', async () => {
    const limited = await startPushServer({ settings: { push: { sendPerAppKey: 3, sendPerAddress: 5 } } });
    try {
      const a = await limited.setup({ type: 'desktop' });
      const b = await limited.setup({ type: 'desktop' });
      const codes: number[] = [];
      for (let i = 0; i < 4; i++) codes.push((await limited.push(`/send/${a.appKey}`, { query: { title: `a${i}` } })).status);
      expect(codes).toEqual([200, 200, 200, 429]);
      const over = await limited.push(`/send/${a.appKey}`, { query: { title: 'again' } });
      expect(over.body).toMatchObject({ code: 429, data: { retryAfterSeconds: expect.any(Number) } });
      expect(over.body.message).toMatch(/pushes per app key: 3 per 60 s/);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(over.headers.get('access-control-allow-origin')).toBe('*');
      // another key still works until the address limit (5 requests so far from this address)
      const next = await limited.push(`/send/${b.appKey}`, { query: { title: 'b' } });
      expect(next.status).toBe(429);
      expect(next.body.message).toMatch(/pushes per caller address: 5 per 60 s/);
      const history = await limited.call('push.queryMessages', {});
      expect(history.data.total).toBe(3);
    } finally {
      await limited.close();
    }
  });
});
