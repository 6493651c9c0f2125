import { Gotify } from 'gotify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDropinServer, type DropinServer } from '../tests/dropin-helpers';
import { gotifyPriority } from './gotify';

let s: DropinServer;
beforeAll(async () => {
  s = await startDropinServer();
});
afterAll(() => s.t.close());

describe('Gotify (the gotify npm client)', () => {
  it('delivers through POST /message?token= and answers a Gotify Message', async () => {
    const message = await new Gotify({ server: s.t.url }).send({
      app: s.appKey,
      title: 'Backup',
      message: 'All **3** jobs OK',
      priority: 8,
      extras: { 'client::display': { contentType: 'text/markdown' }, 'client::notification': { click: { url: 'https://example.org/backups' } } },
    });
    expect(message).toMatchObject({ title: 'Backup', message: 'All **3** jobs OK', priority: 8, extras: { 'client::display': { contentType: 'text/markdown' } } });
    expect(Number.isSafeInteger(message.id)).toBe(true);
    expect(Number.isSafeInteger(message.appid)).toBe(true);
    expect(Date.parse(message.date)).not.toBeNaN();
    expect(s.lastSent().input).toMatchObject({ priority: 'high' });
    expect(s.lastArrived()).toMatchObject({ title: 'Backup', desp: 'All **3** jobs OK\n\n<https://example.org/backups>' });
  });

  it('a title over 256 characters (Gotify takes any length) is cut for display, the whole title kept in the text', async () => {
    const long = 'Watchtower updated 12 containers on nas: '.repeat(8);
    await new Gotify({ server: s.t.url }).send({ app: s.appKey, title: long, message: 'Details follow.' });
    expect(s.lastArrived().title).toBe(long.slice(0, 255) + '…');
    expect(s.lastArrived().desp).toBe(`${long}\n\nDetails follow.`);
  });

  it('rejects an unknown token like Gotify (401)', async () => {
    await expect(new Gotify({ server: s.t.url }).send({ app: 'PP' + 'x'.repeat(24), message: 'x' })).rejects.toThrow(/401/);
  });
});

describe('Gotify request shapes (its documentation)', () => {
  it('takes the key from X-Gotify-Key or a bearer token, and form or multipart fields', async () => {
    const form = await s.t.push('/message', { form: { title: 'Form', message: 'from a form', priority: '2' }, headers: { 'X-Gotify-Key': s.appKey } });
    expect(form.status).toBe(200);
    expect(form.body).toMatchObject({ title: 'Form', message: 'from a form', priority: 2 });
    expect(s.lastSent().input).toMatchObject({ title: 'Form', desp: 'from a form', priority: 'low' });

    // curl "…/message?token=…" -F "title=…" -F "message=…" -F "priority=5"
    const multipart = new FormData();
    multipart.set('title', 'Multipart');
    multipart.set('message', 'from curl -F');
    multipart.set('priority', '5');
    const res = await s.t.fetch('/message', { method: 'POST', body: multipart, headers: { authorization: `Bearer ${s.appKey}` } });
    expect(res.status).toBe(200);
    expect(s.lastArrived()).toMatchObject({ title: 'Multipart', desp: 'from curl -F' });
    expect(s.lastSent().input.priority).toBe('normal');
  });

  it('without a title, the message becomes the title (one line) or gives it its first line', async () => {
    await s.t.push('/message', { query: { token: s.appKey }, json: { message: 'Only a message' } });
    expect(s.lastArrived()).toMatchObject({ title: 'Only a message', desp: '' });
    await s.t.push('/message', { query: { token: s.appKey }, json: { message: 'First line\nsecond line' } });
    expect(s.lastArrived()).toMatchObject({ title: 'First line', desp: 'First line\nsecond line' });
  });

  it('maps Gotify 0–10 onto low/normal/high/urgent', () => {
    expect([0, 1, 3, 4, 5, 7, 8, 9, 10, 15, -1].map(gotifyPriority)).toEqual(['low', 'low', 'low', 'normal', 'normal', 'normal', 'high', 'high', 'urgent', 'urgent', 'low']);
  });

  it('answers Gotify errors ({error, errorCode, errorDescription}) and pushes nothing on bad input', async () => {
    const before = s.sent.length;
    const arrived = s.arrived.length;
    const noToken = await s.t.push('/message', { json: { message: 'x' } });
    expect(noToken.status).toBe(401);
    expect(noToken.body).toMatchObject({ error: 'Unauthorized', errorCode: 401, errorDescription: expect.any(String) });
    const badPriority = await s.t.push('/message', { query: { token: s.appKey }, json: { message: 'x', priority: 'high' } });
    expect(badPriority.status).toBe(400);
    expect(badPriority.body).toMatchObject({ error: 'Bad Request', errorCode: 400, errorDescription: expect.stringMatching(/priority/) });
    const badExtras = await s.t.push('/message', { query: { token: s.appKey }, json: { message: 'x', extras: 'nope' } });
    expect(badExtras.body).toMatchObject({ errorCode: 400, errorDescription: expect.stringMatching(/extras/) });
    const badJson = await s.t.push('/message', { query: { token: s.appKey }, json: '{"message": ' });
    expect(badJson.body).toMatchObject({ errorCode: 400, errorDescription: expect.stringMatching(/Malformed JSON/) });
    expect(s.sent.length).toBe(before);
    const empty = await s.t.push('/message', { query: { token: s.appKey }, json: { message: '  ' } });
    expect(empty.body).toMatchObject({ errorCode: 400, errorDescription: expect.stringMatching(/title is required/) });
    expect(s.arrived.length).toBe(arrived);
    expect(empty.headers.get('access-control-allow-origin')).toBe('*');
  });
});
