import type { Request } from 'express';
import { publish } from 'ntfy';
import { Ntfy } from 'push-all-in-one';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDropinServer, type DropinServer } from '../tests/dropin-helpers';
import { decodeHeader, ntfyJsonPublish, ntfyPublish } from './ntfy';

let s: DropinServer;
const savedNoProxy = process.env.NO_PROXY;
beforeAll(async () => {
  s = await startDropinServer();
  // push-all-in-one's ajax() goes through HTTP(S)_PROXY when the environment has one; NO_PROXY=true turns that off.
  process.env.NO_PROXY = 'true';
});
afterAll(async () => {
  if (savedNoProxy === undefined) delete process.env.NO_PROXY;
  else process.env.NO_PROXY = savedNoProxy;
  await s.t.close();
});

describe('ntfy clients', () => {
  // ntfy 1.13.3: the newest release that declares Node 18+ (1.15 asks for 21 and made npm install warn; issue 36).
  it('the ntfy npm client publishes to {server}/{appKey} and gets a message JSON back', async () => {
    const answer = (await publish({ server: s.t.url, topic: s.appKey, message: 'Backup done: 3 jobs', title: 'Backup', priority: 4, tags: ['floppy_disk', 'ok'] })) as Record<
      string,
      unknown
    >;
    expect(answer).toMatchObject({ event: 'message', topic: s.appKey, title: 'Backup', message: 'Backup done: 3 jobs', tags: ['floppy_disk', 'ok'] });
    expect(typeof answer.id).toBe('string');
    expect(typeof answer.time).toBe('number');
    expect(s.lastSent()).toEqual({ appKey: s.appKey, input: { title: 'Backup', desp: 'Backup done: 3 jobs', priority: '4' } });
    expect(s.lastArrived()).toMatchObject({ id: answer.id, title: 'Backup', desp: 'Backup done: 3 jobs' });
  });

  it('push-all-in-one Ntfy: RFC 2047 titles, click, priority (its axios sends the text as a form)', async () => {
    const client = new Ntfy({ NTFY_URL: s.t.url, NTFY_TOPIC: s.appKey });
    const response = await client.send('磁盘快满了', '只剩 **3 GB**', { priority: 5, click: 'https://example.org/disk', tags: 'warning' });
    expect(response.status).toBe(200);
    expect(response.data).toMatchObject({ event: 'message', topic: s.appKey, title: '磁盘快满了', message: '只剩 **3 GB**', click: 'https://example.org/disk' });
    expect(s.lastSent().input).toMatchObject({ priority: '5' });
    expect(s.lastArrived()).toMatchObject({ title: '磁盘快满了', desp: '只剩 **3 GB**\n\n<https://example.org/disk>' });
  });
});

describe('ntfy request shapes (its documentation)', () => {
  it('curl -d "…" (no title), -H Title/Priority/Tags, PUT with text/plain, and the query forms', async () => {
    // `curl -X POST host/topic`: nothing at all is ntfy's "triggered".
    let res = await s.t.fetch(`/${s.appKey}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ event: 'message', message: 'triggered' });
    expect(s.lastArrived()).toMatchObject({ title: 'triggered', desp: '' });

    res = await s.t.fetch(`/${s.appKey}`, { method: 'POST', body: 'Backup successful 😀', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(200);
    expect(s.lastArrived()).toMatchObject({ title: 'Backup successful 😀', desp: '' });

    res = await s.t.fetch(`/${s.appKey}`, {
      method: 'POST',
      body: 'Remote access detected.',
      headers: { Title: 'Unauthorized access', Priority: 'urgent', Tags: 'warning,skull' },
    });
    expect(await res.json()).toMatchObject({ title: 'Unauthorized access', tags: ['warning', 'skull'] });
    expect(s.lastSent().input).toEqual({ title: 'Unauthorized access', desp: 'Remote access detected.', priority: 'urgent' });

    res = await s.t.fetch(`/${s.appKey}`, {
      method: 'PUT',
      body: 'via PUT',
      headers: { 'content-type': 'text/plain', t: 'Short names', p: '2', 'X-Click': 'https://example.org' },
    });
    expect(res.status).toBe(200);
    expect(s.lastSent().input).toEqual({ title: 'Short names', desp: 'via PUT\n\n<https://example.org>', priority: '2' });

    res = await s.t.fetch(`/${s.appKey}?title=From+query&priority=high&click=https://example.org/q`, {
      method: 'POST',
      body: 'query options',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(200);
    expect(s.lastSent().input).toEqual({ title: 'From query', desp: 'query options\n\n<https://example.org/q>', priority: 'high' });

    // Raw UTF-8 in a header (curl -H "Title: …") is read as UTF-8.
    res = await s.t.fetch(`/${s.appKey}`, { method: 'POST', body: 'b', headers: { Title: Buffer.from('备份完成', 'utf8').toString('latin1') } });
    expect(res.status).toBe(200);
    expect(s.lastArrived().title).toBe('备份完成');
  });

  it('GET publishing: /{appKey}/publish?message=…, /send, /trigger (ntfy\'s "triggered" without a message)', async () => {
    let res = await s.t.fetch(`/${s.appKey}/publish?message=Via+GET&title=Hello&priority=high`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ event: 'message', topic: s.appKey, title: 'Hello', message: 'Via GET' });
    expect(s.lastSent().input).toEqual({ title: 'Hello', desp: 'Via GET', priority: 'high' });
    res = await s.t.fetch(`/${s.appKey}/send?m=short+name`);
    expect(res.status).toBe(200);
    expect(s.lastArrived()).toMatchObject({ title: 'short name', desp: '' });
    res = await s.t.fetch(`/${s.appKey}/trigger`);
    expect(await res.json()).toMatchObject({ message: 'triggered' });
    expect(s.lastArrived()).toMatchObject({ title: 'triggered' });
  });

  it('JSON publishing: POST and PUT / with {topic, message, title, priority, tags, click}', async () => {
    const body = {
      topic: s.appKey,
      message: 'Disk space is low at 5.1 GB',
      title: 'Low disk space alert',
      tags: ['warning', 'cd'],
      priority: 4,
      click: 'https://homecamera.lan/xasds1h2xsSsa/',
      actions: [],
    };
    for (const method of ['POST', 'PUT']) {
      const res = await s.t.fetch('/', { method, body: JSON.stringify(body) }); // curl ntfy.sh -d '{…}': no JSON content type
      expect(res.status, method).toBe(200);
      expect(await res.json()).toMatchObject({ event: 'message', topic: s.appKey, title: 'Low disk space alert', message: body.message, tags: body.tags, click: body.click });
      expect(s.lastSent().input).toEqual({ title: body.title, desp: `${body.message}\n\n<${body.click}>`, priority: '4' });
    }
  });

  it('translates Delay/X-Delay/In and At (headers, query, JSON) into the /send fields delay and at, as given', () => {
    const req = (headers: Record<string, string>, query: Record<string, string> = {}) => ({ headers, query }) as unknown as Request;
    expect(ntfyPublish(req({ 'x-delay': '30m' }), 'k', 'm').input).toMatchObject({ delay: '30m' });
    expect(ntfyPublish(req({ in: '1h' }), 'k', 'm').input).toMatchObject({ delay: '1h' });
    expect(ntfyPublish(req({ at: 'tomorrow, 10am' }), 'k', 'm').input).toMatchObject({ at: 'tomorrow, 10am' });
    expect(ntfyPublish(req({}, { delay: '1639194738' }), 'k', 'm').input).toMatchObject({ delay: '1639194738' });
    expect(ntfyPublish(req({}, { at: '1639194738' }), 'k', 'm').input).toMatchObject({ at: '1639194738' });
    expect(ntfyJsonPublish(JSON.stringify({ topic: 'k', message: 'm', delay: '10m' })).input).toMatchObject({ delay: '10m' });
    expect(ntfyPublish(req({}), 'k', 'm').input).not.toHaveProperty('delay');
    // RFC 9218's Priority header (browsers) is not ntfy's.
    expect(ntfyPublish(req({ priority: 'u=1, i' }), 'k', 'm').input).not.toHaveProperty('priority');
  });

  it('decodes RFC 2047 encoded words (B and Q) and leaves anything else as sent', () => {
    expect(decodeHeader('=?utf-8?B?5L2g5aW9?=')).toBe('你好');
    expect(decodeHeader('=?UTF-8?Q?Caf=C3=A9_au_lait?=')).toBe('Café au lait');
    expect(decodeHeader('=?iso-8859-1?Q?=E9t=E9?=')).toBe('été');
    expect(decodeHeader('plain =? text')).toBe('plain =? text');
    expect(decodeHeader('=?nope?B?!!!?=')).toBe('=?nope?B?!!!?=');
  });
});

describe('what real ntfy clients send (issue: 16 of 127 client cases failed)', () => {
  it("Apprise's ntfy://: JSON to / with X-Priority, X-Click, X-Delay, X-Tags, X-Markdown beside it — each applied, a delayed message scheduled", async () => {
    const res = await s.t.fetch('/', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'X-Priority': 'high',
        'X-Click': 'https://example.org/job/42',
        'X-Delay': '30m',
        'X-Tags': 'warning,skull',
        'X-Markdown': 'yes',
      },
      body: JSON.stringify({ topic: s.appKey, title: 'Job failed', message: 'Step **3** failed' }),
    });
    expect(res.status).toBe(200);
    const answer = await res.json();
    expect(answer).toMatchObject({ event: 'message', title: 'Job failed', message: 'Step **3** failed', tags: ['warning', 'skull'], click: 'https://example.org/job/42' });
    expect(s.lastSent().input).toEqual({ title: 'Job failed', desp: 'Step **3** failed\n\n<https://example.org/job/42>', priority: 'high', delay: '30m' });
    // Not delivered now: scheduled, and the answer's time is when it goes out.
    expect(answer.time).toBeGreaterThan(Math.floor(Date.now() / 1000) + 29 * 60);
    const waiting = (await s.t.call('push.queryScheduled', {})).data.list as Array<{ title: string }>;
    expect(waiting.map((p) => p.title)).toContain('Job failed');
    // A field in the JSON wins over its header, as in ntfy.
    await s.t.fetch('/', { method: 'POST', headers: { 'X-Priority': 'low' }, body: JSON.stringify({ topic: s.appKey, message: 'json wins', priority: 5 }) });
    expect(s.lastSent().input).toMatchObject({ priority: '5' });
  });

  it('POST /{appKey}?message=…&title=… with no body, and a lone Message header, push the message', async () => {
    let res = await s.t.fetch(`/${s.appKey}?message=Disk+full&title=Alert`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ event: 'message', title: 'Alert', message: 'Disk full' });
    expect(s.lastArrived()).toMatchObject({ title: 'Alert', desp: 'Disk full' });
    res = await s.t.fetch(`/${s.appKey}?m=short+form`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(s.lastArrived()).toMatchObject({ title: 'short form' });
    res = await s.t.fetch(`/${s.appKey}`, { method: 'POST', headers: { Message: 'From a header' } });
    expect(res.status).toBe(200);
    expect(s.lastArrived()).toMatchObject({ title: 'From a header' });
    // ntfy: the message option wins over the body, and `\n` in it is a line break.
    res = await s.t.fetch(`/${s.appKey}`, { method: 'POST', headers: { 'X-Message': 'line one\\nline two', Title: 'T' }, body: 'the body' });
    expect(res.status).toBe(200);
    expect(s.lastArrived()).toMatchObject({ title: 'T', desp: 'line one\nline two' });
  });

  it('JSON text posted to /{appKey} is the message exactly as sent, with or without a Title header', async () => {
    const alert = '{"alert":"cpu high","value":93,  "host":"nas"}';
    let res = await s.t.fetch(`/${s.appKey}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: alert });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ event: 'message', message: alert });
    expect(s.lastArrived()).toMatchObject({ title: alert });
    res = await s.t.fetch(`/${s.appKey}`, { method: 'POST', headers: { 'content-type': 'application/json', Title: 'Alertmanager' }, body: alert });
    expect(await res.json()).toMatchObject({ title: 'Alertmanager', message: alert });
    expect(s.lastArrived()).toMatchObject({ title: 'Alertmanager', desp: alert });
    // JSON with PennyPost's own fields stays PennyPost's /send.
    res = await s.t.fetch(`/${s.appKey}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'native', desp: 'd' }) });
    expect(await res.json()).toMatchObject({ code: 0, message: 'Delivered.' });
  });

  it('an empty publish is "triggered": curl -X POST, and JSON without a message', async () => {
    let res = await s.t.fetch(`/${s.appKey}`, { method: 'POST' });
    expect(await res.json()).toMatchObject({ message: 'triggered' });
    res = await s.t.fetch('/', { method: 'POST', body: JSON.stringify({ topic: s.appKey, title: 'Only a title' }) });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ title: 'Only a title', message: 'triggered' });
    expect(s.lastArrived()).toMatchObject({ title: 'Only a title', desp: 'triggered' });
  });

  it('a title over 256 characters is cut for display, the whole title kept in the text (ntfy takes any length)', async () => {
    const long = 'Build #1234 of repository example/very-long-name failed on runner linux-arm64-large;'.repeat(4);
    const res = await s.t.fetch(`/${s.appKey}`, { method: 'POST', headers: { Title: long }, body: 'See the log.' });
    expect(res.status).toBe(200);
    const arrived = s.lastArrived();
    expect(arrived.title).toHaveLength(256);
    expect(arrived.title.endsWith('…')).toBe(true);
    expect(arrived.desp).toBe(`${long}\n\nSee the log.`);
  });
});

describe('ntfy errors and the forms it shares with /send', () => {
  it('answers ntfy errors ({code, http, error}) and pushes nothing on bad input', async () => {
    const before = s.sent.length;
    let res = await s.t.fetch('/', { method: 'POST', body: 'not json' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 40000, http: 400, error: expect.stringMatching(/JSON object/) });
    res = await s.t.fetch('/', { method: 'POST', body: JSON.stringify({ message: 'no topic' }) });
    expect(await res.json()).toMatchObject({ http: 400, error: expect.stringMatching(/topic is required/) });
    res = await s.t.fetch('/', { method: 'POST', body: JSON.stringify({ topic: s.appKey, message: 'x', tags: 'a' }) });
    expect(await res.json()).toMatchObject({ http: 400, error: expect.stringMatching(/tags/) });
    expect(s.sent.length).toBe(before);
    res = await s.t.fetch(`/${s.appKey}`, { method: 'PUT', body: 'x', headers: { Priority: 'loudest' } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 40000, http: 400, error: expect.stringMatching(/priority/) });
    res = await s.t.fetch(`/PP${'z'.repeat(24)}`, { method: 'PUT', body: 'x' });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 40400, http: 404, error: expect.stringMatching(/Unknown app key/) });
    res = await s.t.fetch('/', { method: 'POST', body: JSON.stringify({ topic: 'not-a-key', message: 'x' }) });
    expect(res.status).toBe(404);
    // Refused before the route's code runs (wrong method, unreadable body): still ntfy's shape.
    const sentBefore = s.sent.length;
    for (const [path, init] of [
      [`/${s.appKey}/trigger`, { method: 'DELETE' }],
      [`/${s.appKey}/publish`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"message":' }],
      [`/${s.appKey}/send`, { method: 'POST', headers: { 'content-type': 'multipart/form-data' }, body: 'message=x' }],
    ] as Array<[string, RequestInit]>) {
      res = await s.t.fetch(path, init);
      expect(res.status, path).toBe(400);
      expect(await res.json()).toEqual({ code: 40000, http: 400, error: expect.any(String) });
    }
    expect(s.sent.length).toBe(sentBefore);
  });

  it("keeps PennyPost's /send on /{appKey} for forms with its fields, JSON, and bodyless POSTs", async () => {
    for (const init of [{ form: { title: 'a form', desp: 'd' } }, { json: { title: 'json' } }, { method: 'POST', query: { title: 'query only' } }]) {
      const answer = await s.t.push(`/${s.appKey}`, init);
      expect(answer.status, JSON.stringify(init)).toBe(200);
      expect(answer.body, JSON.stringify(init)).toMatchObject({ code: 0, message: 'Delivered.', data: { pushid: expect.any(String) } });
    }
    // /{appKey}.send is always /send: a text body there is ignored as before.
    const dotSend = await s.t.fetch(`/${s.appKey}.send?title=dot`, { method: 'POST', body: 'ignored', headers: { 'content-type': 'text/plain' } });
    expect(await dotSend.json()).toMatchObject({ code: 0 });
    expect(s.lastArrived()).toMatchObject({ title: 'dot', desp: '' });
  });
});
