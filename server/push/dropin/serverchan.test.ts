import axios from 'axios';
import { ServerChanTurbo, ServerChanV3 } from 'push-all-in-one';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDropinServer, type DropinServer } from '../tests/dropin-helpers';
import { appKeyOf, serverChanV3Key, withServerChanFields } from './serverchan';

let s: DropinServer;
let interceptor: number;
const savedNoProxy = process.env.NO_PROXY;

beforeAll(async () => {
  s = await startDropinServer();
  // push-all-in-one's clients hard-code ServerChan's hosts (https://sctapi.ftqq.com/{key}.send and
  // https://{uid}.push.ft07.com/send/{key}.send) and send them through the default axios instance, which
  // the library imports like this test does (the same module). An interceptor on that instance moves
  // each request to the local PennyPost, path and body untouched: exactly what pointing a script at
  // PennyPost does, without changing the library. Anything else is refused, so no request leaves.
  interceptor = axios.interceptors.request.use((config) => {
    const url = String(config.url);
    const moved = url.replace(/^https:\/\/(?:sctapi\.ftqq\.com|\d+\.push\.ft07\.com)\//, `${s.t.url}/`);
    if (moved === url) throw new Error(`unexpected request to ${url}`);
    return { ...config, url: moved };
  });
  // The library's ajax() goes through HTTP(S)_PROXY when the environment has one; NO_PROXY=true turns that off.
  process.env.NO_PROXY = 'true';
});
afterAll(async () => {
  axios.interceptors.request.eject(interceptor);
  if (savedNoProxy === undefined) delete process.env.NO_PROXY;
  else process.env.NO_PROXY = savedNoProxy;
  await s.t.close();
});

describe('ServerChan Turbo (push-all-in-one ServerChanTurbo)', () => {
  it('delivers, accepts short/noip/channel/openid, and answers with pushid and a readkey that opens the message page', async () => {
    const client = new ServerChanTurbo({ SERVER_CHAN_TURBO_SENDKEY: s.appKey });
    const response = await client.send('Disk almost full', 'Only **3 GB** left', { short: 'disk', noip: true, channel: '9|18', openid: 'oAbc' });
    expect(response.status).toBe(200);
    const body = response.data as unknown as { code: number; message: string; data: Record<string, unknown> };
    expect(body.code).toBe(0);
    expect(body.data).toMatchObject({ error: 'SUCCESS', errno: 0, success: 1 });
    expect(body.data.pushid).toBe(body.data.pushId);
    expect(body.data.readkey).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(s.lastArrived()).toMatchObject({ id: body.data.pushid, title: 'Disk almost full', desp: 'Only **3 GB** left' });
    // The readkey reads the push: /m/{pushid}.{readkey} is its page; another readkey is not.
    const page = await s.t.fetch(`/m/${String(body.data.pushid)}.${String(body.data.readkey)}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Disk almost full');
    expect((await s.t.fetch(`/m/${String(body.data.pushid)}.${'A'.repeat(22)}`)).status).toBe(404);
    expect(String(body.data.url)).toContain(`/m/${String(body.data.pushid)}.${String(body.data.readkey)}`);
  });
});

describe('ServerChan³ (push-all-in-one ServerChanV3)', () => {
  it('takes an app key in its sctp{uid}t{key} form and delivers; tags and short are accepted', async () => {
    const client = new ServerChanV3({ SERVER_CHAN_V3_SENDKEY: serverChanV3Key(s.appKey, '42') });
    const response = await client.send('Deploy done', 'v1.2 is **live**', { tags: ['deploy', 'prod'], short: 'v1.2 live' });
    expect(response.status).toBe(200);
    const body = response.data as unknown as { code: number; errno: number; data: Record<string, unknown> };
    expect(body).toMatchObject({ code: 0, errno: 0, data: { errno: 0, error: 'SUCCESS' } });
    expect(s.lastSent()).toMatchObject({ appKey: s.appKey, input: { text: 'Deploy done', desp: 'v1.2 is **live**', tags: 'deploy|prod', short: 'v1.2 live' } });
    expect(s.lastArrived()).toMatchObject({ id: body.data.pushid, title: 'Deploy done', desp: 'v1.2 is **live**' });
  });

  it('works on every /send form, any uid digits; an unknown key in sctp form is still a 404', async () => {
    for (const key of [serverChanV3Key(s.appKey), `sctp0t${s.appKey}`, `sctp123456789t${s.appKey}`]) {
      for (const path of [`/send/${key}.send`, `/send/${key}`]) {
        const answer = await s.t.push(path, { query: { title: `via ${path.slice(0, 12)}` } });
        expect(answer.status, path).toBe(200);
        expect(answer.body.data.pushid, path).toBe(answer.body.data.pushId);
      }
    }
    const unknown = await s.t.push(`/send/sctp1tPP${'x'.repeat(24)}.send`, { query: { title: 'x' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 404, message: expect.stringMatching(/Unknown app key/) });
    // Not the sctp shape (no digits, or no `t`): looked up as given, so unknown.
    for (const key of [`sctpt${s.appKey}`, `sctp1${s.appKey}`]) expect((await s.t.push(`/send/${key}.send`, { query: { title: 'x' } })).status, key).toBe(404);
  });

  it('reads only the sctp{digits}t prefix', () => {
    expect(appKeyOf('sctp42tPPabc')).toBe('PPabc');
    expect(appKeyOf('PPabc')).toBe('PPabc');
    expect(appKeyOf('sctpxtPPabc')).toBe('sctpxtPPabc');
  });
});

describe("failures keep PennyPost's shape", () => {
  it('answers 400 without a title and adds no ServerChan success fields', async () => {
    const answer = await s.t.push(`/send/${serverChanV3Key(s.appKey)}.send`, { json: { desp: 'no title' } });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 400, data: { field: 'title' } });
    expect(answer.body.errno).toBeUndefined();
  });

  it('a sendkey that is not UTF-8 once percent-decoded is a 400 envelope (was the generic text 500)', async () => {
    for (const path of ['/send/sctp1t%E0%A4%A.send', '/send/sctp42t%ff', `/send/%ff${s.appKey}`]) {
      const res = await s.t.fetch(`${path}?title=x`);
      expect(res.status, path).toBe(400);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(await res.json()).toEqual({ code: 400, message: expect.stringMatching(/not valid percent-encoded UTF-8/), data: null });
    }
  });
});

describe('ServerChan fields, shaped after delivery', () => {
  it('come from the answer alone (its readKey), without asking the push service', () => {
    const data = { pushId: '0mwqh5e2kbV90ngxafK', total: 1, success: 1, failed: 0, results: [] };
    const shaped = withServerChanFields({ status: 200, body: { code: 0, message: 'Delivered.', data }, headers: {}, readKey: 'gfYjvzi64xlIvfNH68EBrW' });
    expect(shaped.body).toEqual({
      code: 0,
      message: 'Delivered.',
      errno: 0,
      data: { ...data, pushid: data.pushId, readkey: 'gfYjvzi64xlIvfNH68EBrW', error: 'SUCCESS', errno: 0 },
    });
    const failed = withServerChanFields({ status: 500, body: { code: 500, message: 'Not delivered: x', data }, headers: {}, readKey: 'k' });
    expect(failed.body).toEqual({ code: 500, message: 'Not delivered: x', data: { ...data, pushid: data.pushId, readkey: 'k' } });
  });
});
