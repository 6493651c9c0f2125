import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priorityOf } from '../message-options';
import { startDropinServer, type DropinServer } from '../tests/dropin-helpers';

/** Bark has no npm client: these are the request shapes of Bark's documentation (its curl examples). */
let s: DropinServer;
beforeAll(async () => {
  s = await startDropinServer();
});
afterAll(() => s.t.close());

function expectBarkSuccess(answer: { status: number; body: any }) {
  expect(answer.status).toBe(200);
  expect(answer.body).toMatchObject({ code: 200, message: 'success', timestamp: expect.any(Number) });
  expect(Math.abs(answer.body.timestamp - Date.now() / 1000)).toBeLessThan(60);
}

describe('Bark path forms', () => {
  it('GET /{key}/{body}, /{key}/{title}/{body}, /{key}/{title}/{subtitle}/{body}, percent-encoded', async () => {
    expectBarkSuccess(await s.t.push(`/${s.appKey}/${encodeURIComponent('推送内容')}`));
    expect(s.lastArrived()).toMatchObject({ title: '推送内容', desp: '' });

    expectBarkSuccess(await s.t.push(`/${s.appKey}/${encodeURIComponent('Title')}/${encodeURIComponent('Body text')}`));
    expect(s.lastArrived()).toMatchObject({ title: 'Title', desp: 'Body text' });

    expectBarkSuccess(await s.t.push(`/${s.appKey}/Title/Subtitle/Body`));
    expect(s.lastArrived()).toMatchObject({ title: 'Title', desp: 'Subtitle\n\nBody' });
  });

  it('maps level → priority, group → group, url → a link; ignores sound, icon, isArchive, badge, copy', async () => {
    const query = {
      level: 'timeSensitive',
      group: 'backups',
      url: 'https://example.org/x',
      sound: 'minuet',
      icon: 'https://day.app/assets/images/avatar.jpg',
      isArchive: '1',
      badge: '1',
      copy: 'c',
    };
    expectBarkSuccess(await s.t.push(`/${s.appKey}/Alarm/Disk%20full`, { query }));
    expect(s.lastSent().input).toEqual({ title: 'Alarm', desp: 'Disk full\n\n<https://example.org/x>', priority: 'timeSensitive', group: 'backups' });
    for (const [level, priority] of [
      ['passive', 'low'],
      ['active', 'normal'],
      ['timeSensitive', 'high'],
      ['critical', 'urgent'],
    ] as const) {
      expectBarkSuccess(await s.t.push(`/${s.appKey}/t/b`, { query: { level } }));
      expect(s.lastSent().input.priority, level).toBe(level);
      expect(priorityOf(s.lastSent().input), level).toBe(priority);
    }
    // A level Bark does not know is ignored, as Bark does, rather than refused.
    expectBarkSuccess(await s.t.push(`/${s.appKey}/t/b`, { query: { level: 'loud' } }));
    expect(s.lastSent().input.priority).toBeUndefined();
  });

  it("POST /{key}/{title}/{body} with form fields, and POST /{key} with JSON (Bark's curl example)", async () => {
    expectBarkSuccess(await s.t.push(`/${s.appKey}/Title/Body`, { form: { group: 'g1' } }));
    expect(s.lastSent().input).toMatchObject({ title: 'Title', desp: 'Body', group: 'g1' });
    expectBarkSuccess(
      await s.t.push(`/${s.appKey}`, {
        json: {
          body: 'Test Bark Server',
          title: 'Test Title',
          badge: 1,
          sound: 'minuet',
          icon: 'https://day.app/assets/images/avatar.jpg',
          group: 'test',
          url: 'https://mritd.com',
        },
        headers: { 'content-type': 'application/json; charset=utf-8' },
      }),
    );
    expect(s.lastArrived()).toMatchObject({ title: 'Test Title', desp: 'Test Bark Server\n\n<https://mritd.com>' });
    // GET /{key}?body=… and a form body with `body`.
    expectBarkSuccess(await s.t.push(`/${s.appKey}`, { query: { body: 'only a body' } }));
    expect(s.lastArrived()).toMatchObject({ title: 'only a body' });
    expectBarkSuccess(await s.t.push(`/${s.appKey}`, { form: { title: 'T', body: 'form body' } }));
    expect(s.lastArrived()).toMatchObject({ title: 'T', desp: 'form body' });
  });
});

describe('Bark POST /push', () => {
  it('takes {device_key, title, body, …} as JSON, and device_keys for several', async () => {
    expectBarkSuccess(await s.t.push('/push', { json: { device_key: s.appKey, title: 'From /push', body: 'JSON body', group: 'g', level: 'critical' } }));
    expect(s.lastSent()).toEqual({ appKey: s.appKey, input: { title: 'From /push', desp: 'JSON body', priority: 'critical', group: 'g' } });
    expect(s.lastArrived()).toMatchObject({ title: 'From /push', desp: 'JSON body' });
    const count = s.arrived.length;
    expectBarkSuccess(await s.t.push('/push', { json: { device_keys: [s.appKey, s.appKey], title: 'Twice', body: 'b' } }));
    expect(s.arrived.length).toBe(count + 2);
  });

  it('a title over 256 characters (Bark takes any length) is cut for display, the whole title kept in the text, on every Bark form', async () => {
    const long = 'Home Assistant: front door opened while nobody is home; '.repeat(6);
    expectBarkSuccess(await s.t.push('/push', { json: { device_key: s.appKey, title: long, body: 'Check the camera.' } }));
    expect(s.lastArrived()).toMatchObject({ title: long.slice(0, 255) + '…', desp: `${long}\n\nCheck the camera.` });
    expectBarkSuccess(await s.t.push(`/${s.appKey}/${encodeURIComponent(long)}/${encodeURIComponent('Path body')}`, {}));
    expect(s.lastArrived()).toMatchObject({ title: long.slice(0, 255) + '…', desp: `${long}\n\nPath body` });
  });

  it("answers failures with PennyPost's status and code in Bark's shape, and pushes nothing on bad input", async () => {
    const before = s.sent.length;
    const missing = await s.t.push('/push', { json: { title: 'no key', body: 'b' } });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 400, message: expect.stringMatching(/device_key/), timestamp: expect.any(Number) });
    const tooMany = await s.t.push('/push', { json: { device_keys: [], body: 'b' } });
    expect(tooMany.body).toMatchObject({ code: 400, message: expect.stringMatching(/device_keys/) });
    expect(s.sent.length).toBe(before);
    // A key no app has refuses the whole list before anything is pushed (a retry then pushes nothing twice).
    const arrivedBefore = s.arrived.length;
    const partial = await s.t.push('/push', { json: { device_keys: [s.appKey, 'PP' + 'x'.repeat(24), s.appKey], body: 'b' } });
    expect(partial.status).toBe(404);
    expect(partial.body).toMatchObject({ code: 404, message: expect.stringMatching(/^Unknown app key/) });
    expect(s.arrived.length).toBe(arrivedBefore);
    const unknown = await s.t.push('/push', { json: { device_key: 'PP' + 'x'.repeat(24), body: 'b' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 404, message: expect.stringMatching(/Unknown app key/) });
    const unknownPath = await s.t.push(`/PP${'y'.repeat(24)}/title/body`);
    expect(unknownPath.body).toMatchObject({ code: 404 });
    const repeated = await s.t.push(`/${s.appKey}/t/b?group=a&group=b`);
    expect(repeated.status).toBe(400);
    expect(repeated.body).toMatchObject({ code: 400, message: expect.stringMatching(/group/) });
  });
});

describe("refusals before the route's code runs keep Bark's shape", () => {
  it('a wrong method, an unreadable body and a path that is not UTF-8 answer 400 {code, message, timestamp}, and push nothing', async () => {
    const before = s.sent.length;
    const expectBark400 = async (res: Response, message: RegExp) => {
      expect(res.status).toBe(400);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(await res.json()).toEqual({ code: 400, message: expect.stringMatching(message), timestamp: expect.any(Number) });
    };
    await expectBark400(await s.t.fetch(`/${s.appKey}/Title/Body`, { method: 'DELETE' }), /Use GET or POST/);
    const broken = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title": "x"' };
    await expectBark400(await s.t.fetch(`/${s.appKey}/Title/Body`, broken), /Malformed JSON/);
    await expectBark400(await s.t.fetch('/push', broken), /Malformed JSON/);
    await expectBark400(await s.t.fetch('/push', { method: 'POST', headers: { 'content-type': 'multipart/form-data' }, body: 'title=x' }), /multipart/);
    // Express cannot decode %ff or a cut UTF-8 sequence: was the generic text 500 "Internal error."
    await expectBark400(await s.t.fetch(`/${s.appKey}/%ff`), /not valid percent-encoded UTF-8/);
    await expectBark400(await s.t.fetch(`/${s.appKey}/Title/%E0%A4%A`, { method: 'POST' }), /not valid percent-encoded UTF-8/);
    expect(s.sent.length).toBe(before);
  });
});
