import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../lib/clock';
import { networkPolicy } from '../http/network-policy';
import { normalizeSettings } from '../config/settings';
import { registerUser, startTestServer, type TestServer } from '../test-support/test-server';
import { HTML_PAGE, putBytes, tinyJpeg, tinyPdf, tinyPng, uploadFile } from '../test-support/files';
import { commonErrors } from '../lib/errors';
import { filesErrors } from './errors';
import { expectRefusal } from '../test-support/refusal';
import { recordDoc } from '../test-support/sync';
import { callMiddleware } from '../test-support/network-policy';

const START = Date.UTC(2026, 2, 1, 9, 0, 0);

function storedNames(t: TestServer): string[] {
  return readdirSync(path.join(t.dataDir, 'files')).filter((n) => n !== '.tmp');
}
function tmpNames(t: TestServer): string[] {
  return readdirSync(path.join(t.dataDir, 'files', '.tmp'));
}

/** A catalogue row, as expectRefusal takes it. */
type RefusalRow = { readonly code: number; readonly status: number };
type Envelope = { code: number; message: string; data: any };

/** An answer of the file routes (GET /files/…, PUT …/upload) as expectRefusal reads it: its status and its envelope. */
async function answerOf(response: Response): Promise<Envelope & { status: number }> {
  return { status: response.status, ...((await response.json()) as Envelope) };
}

/** The byte upload of uploadFile as expectRefusal reads it. */
function putAnswer(upload: { put: Response | null; putBody: Envelope | null }): Envelope & { status: number } {
  if (!upload.put || !upload.putBody) throw new Error('file.upload was refused: no bytes were sent');
  return { status: upload.put.status, ...upload.putBody };
}

describe('files: upload flow and serving', () => {
  let t: TestServer;
  const clock = new ManualClock(START);
  let alice: { token: string; id: string };
  let bob: { token: string; id: string };
  beforeAll(async () => {
    t = await startTestServer({ clock });
    alice = await registerUser(t);
    bob = await registerUser(t);
  });
  afterAll(() => t.close());

  it('announces, receives, stores and serves a PNG to its owner', async () => {
    const png = tinyPng();
    const ticket = await t.api('file.upload', { fileName: 'lunch.png', fileType: 'image/png', fileSize: png.length, category: 'receipt' }, alice.token);
    expect(ticket.status).toBe(200);
    expect(Object.keys(ticket.data).sort()).toEqual(['fileId', 'maxBytes', 'uploadExpiresAt', 'uploadUrl', 'url']);
    expect(ticket.data.url).toBe(`/files/${ticket.data.fileId}`);
    expect(ticket.data.uploadUrl).toMatch(new RegExp(`^/files/${ticket.data.fileId}/upload\\?expires=\\d+&sig=`));
    expect(ticket.data.uploadExpiresAt).toBe(START + 900_000);

    // Before the bytes arrive: not listed, not servable, not attachable.
    expect((await t.api('file.query', {}, alice.token)).data.total).toBe(0);
    const early = await t.fetch(`/files/${ticket.data.fileId}`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(early.status).toBe(404);
    await expect(t.server.app.services.files.assertOwned(alice.id, [ticket.data.fileId])).rejects.toMatchObject({ code: filesErrors.rows.attachmentWithoutBytes.code });

    const put = await putBytes(t.url + String(ticket.data.uploadUrl), png, { 'content-type': 'application/octet-stream' });
    expect(put.status).toBe(200);
    const stored = await put.json();
    expect(stored.code).toBe(200);
    expect(stored.data).toMatchObject({ fileId: ticket.data.fileId, fileName: 'lunch.png', fileType: 'image/png', fileSize: png.length, category: 'receipt', missing: false });

    const get = await t.fetch(`/files/${ticket.data.fileId}`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(get.status).toBe(200);
    expect(get.headers.get('content-type')).toBe('image/png');
    expect(get.headers.get('x-content-type-options')).toBe('nosniff');
    expect(get.headers.get('content-disposition')).toBe(`inline; filename="lunch.png"; filename*=UTF-8''lunch.png`);
    expect(get.headers.get('content-security-policy')).toMatch(/sandbox/);
    expect(Buffer.from(await get.arrayBuffer()).equals(png)).toBe(true);

    const list = await t.api('file.query', {}, alice.token);
    expect(list.data).toMatchObject({ total: 1, page: 1, pageSize: 20 });
    expect(list.data.list[0]).toMatchObject({ fileId: ticket.data.fileId, missing: false });
    await t.server.app.services.files.assertOwned(alice.id, [ticket.data.fileId]);
    expect(storedNames(t)).toContain(ticket.data.fileId);
    expect(tmpNames(t)).toEqual([]);
  });

  it('serves through a signed link without a header until it expires; altered links are refused', async () => {
    const { ticket } = await uploadFile(t, alice.token, tinyJpeg(), { fileName: 'photo.jpg', fileType: 'image/jpg' });
    const item = (await t.api('file.query', {}, alice.token)).data.list.find((f: any) => f.fileId === ticket.data.fileId);
    expect(item.fileType).toBe('image/jpeg');
    expect(item.signedUrlExpiresAt).toBeGreaterThanOrEqual(clock.now() + 3600_000);
    const ok = await t.fetch(item.signedUrl);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('image/jpeg');
    expect(ok.headers.get('cache-control')).toMatch(/^private, max-age=\d+$/);

    const otherFile = (await uploadFile(t, alice.token, tinyPng())).ticket.data.fileId;
    const swapped = item.signedUrl.replace(ticket.data.fileId, otherFile);
    expect((await t.fetch(swapped)).status).toBe(403);
    const longer = item.signedUrl.replace(/expires=(\d+)/, (_: string, n: string) => `expires=${Number(n) + 1000}`);
    expect((await t.fetch(longer)).status).toBe(403);
    expect((await t.fetch(`/files/${ticket.data.fileId}?expires=1&sig=x`)).status).toBe(403);

    clock.advance(item.signedUrlExpiresAt - clock.now());
    const expired = await t.fetch(item.signedUrl);
    expect(expired.status).toBe(403);
    expect((await expired.json()).message).toMatch(/expired/);
  });

  it("refuses reading without a token, with a bad token, and another user's file (5001)", async () => {
    const { ticket } = await uploadFile(t, alice.token, tinyPng());
    const id = ticket.data.fileId;
    expect((await t.fetch(`/files/${id}`)).status).toBe(401);
    expect((await t.fetch(`/files/${id}`, { headers: { authorization: 'Bearer nonsense' } })).status).toBe(401);
    const other = await t.fetch(`/files/${id}`, { headers: { authorization: `Bearer ${bob.token}` } });
    expectRefusal(await answerOf(other), filesErrors.rows.fileNotFound);
    expect((await t.fetch(`/files/..%2Fsettings.json`, { headers: { authorization: `Bearer ${alice.token}` } })).status).toBe(404);

    const del = await t.api('file.delete', { fileId: id }, bob.token);
    expectRefusal(del, filesErrors.rows.fileNotFound);
    expect((await t.api('file.query', {}, bob.token)).data.list.map((f: any) => f.fileId)).not.toContain(id);
    await expect(t.server.app.services.files.assertOwned(bob.id, [id])).rejects.toMatchObject({ code: filesErrors.rows.attachmentNotFound.code, details: { fileId: id } });
    const described = await t.server.app.services.files.describe(bob.id, [id]);
    expect(described).toEqual([{ fileId: id, fileName: '', fileType: '', fileSize: 0, category: '', url: '', signedUrl: '', missing: true }]);
  });

  it('lists by category with pages, newest first', async () => {
    const carol = await registerUser(t);
    for (let i = 0; i < 5; i++) {
      clock.advance(1000);
      await uploadFile(t, carol.token, tinyPng(), { fileName: `r${i}.png`, category: i % 2 ? 'statement' : 'receipt' });
    }
    const page1 = await t.api('file.query', { category: 'receipt', page: 1, pageSize: 2 }, carol.token);
    expect(page1.data).toMatchObject({ total: 3, page: 1, pageSize: 2 });
    expect(page1.data.list.map((f: any) => f.fileName)).toEqual(['r4.png', 'r2.png']);
    const page2 = await t.api('file.query', { category: 'receipt', page: 2, pageSize: 2 }, carol.token);
    expect(page2.data.list.map((f: any) => f.fileName)).toEqual(['r0.png']);
    const all = await t.api('file.query', { pageSize: 100 }, carol.token);
    expect(all.data.total).toBe(5);
    expectRefusal(await t.api('file.query', { pageSize: 101 }, carol.token), commonErrors.rows.invalid);
    expectRefusal(await t.api('file.query', { page: 0 }, carol.token), commonErrors.rows.invalid);
  });

  it('checks type and size at file.upload: 5003 (415), 5002 (413), 400, 401', async () => {
    for (const fileType of ['text/html', 'image/svg+xml', 'application/zip', 'application/javascript', 'application/octet-stream']) {
      const answer = await t.api('file.upload', { fileName: 'x', fileType, fileSize: 10 }, alice.token);
      expectRefusal(answer, filesErrors.rows.invalidFileType, { label: fileType });
      expect(answer.data.allowedTypes).toContain('image/png');
    }
    const huge = await t.api('file.upload', { fileName: 'scan.pdf', fileType: 'application/pdf', fileSize: 20 * 1024 * 1024 + 1 }, alice.token);
    expectRefusal(huge, filesErrors.rows.fileTooLarge);
    expect(huge.data).toMatchObject({ maxBytes: 20 * 1024 * 1024 });
    const atLimit = await t.api('file.upload', { fileName: 'scan.pdf', fileType: 'application/pdf', fileSize: 20 * 1024 * 1024 }, alice.token);
    expect(atLimit.status).toBe(200);
    for (const params of [
      { fileName: '', fileType: 'image/png', fileSize: 10 },
      { fileName: 'a/b.png', fileType: 'image/png', fileSize: 10 },
      { fileName: 'bad\u0000.png', fileType: 'image/png', fileSize: 10 },
      { fileName: 'a.png', fileType: 'image/png', fileSize: 0 },
      { fileName: 'a.png', fileType: 'image/png', fileSize: 1.5 },
      { fileName: 'a.png', fileType: 'image/png' },
      { fileName: 'a.png', fileType: 'image/png', fileSize: 10, extra: 1 },
    ]) {
      expect((await t.api('file.upload', params, alice.token)).status, JSON.stringify(params)).toBe(400);
    }
    expectRefusal(await t.api('file.upload', { fileName: 'a.png', fileType: 'image/png', fileSize: 10 }), commonErrors.rows.unauthorized);
  });

  it('refuses an HTML page declared as PNG (5003, 415) and keeps nothing', async () => {
    const before = storedNames(t).length;
    const upload = await uploadFile(t, alice.token, HTML_PAGE, { fileName: 'cute.png', fileType: 'image/png' });
    const { ticket, putBody } = upload;
    expectRefusal(putAnswer(upload), filesErrors.rows.bytesNotOfDeclaredType);
    expect(putBody!.message).toMatch(/not a recognisable file|declared image\/png/);
    expect(storedNames(t).length).toBe(before);
    expect(tmpNames(t)).toEqual([]);
    const again = await putBytes(t.url + String(ticket.data.uploadUrl), tinyPng());
    expectRefusal(await answerOf(again), filesErrors.rows.uploadFileGone);
    expect((await t.fetch(`/files/${ticket.data.fileId}`, { headers: { authorization: `Bearer ${alice.token}` } })).status).toBe(404);
  });

  it('refuses a PDF declared as PNG and a PNG declared as PDF', async () => {
    const a = await uploadFile(t, alice.token, tinyPdf(), { fileType: 'image/png' });
    expectRefusal(putAnswer(a), filesErrors.rows.bytesNotOfDeclaredType);
    expect(a.putBody!.data).toMatchObject({ detected: 'application/pdf' });
    const b = await uploadFile(t, alice.token, tinyPng(), { fileName: 'x.pdf', fileType: 'application/pdf' });
    expectRefusal(putAnswer(b), filesErrors.rows.bytesNotOfDeclaredType);
    expect(b.putBody!.data).toMatchObject({ detected: 'image/png' });
  });

  it('accepts UTF-8 and GB18030 text, refuses binary, NUL bytes and HTML declared as text', async () => {
    const csv = Buffer.from('date,amount,note\n2026-03-01,12.30,Café ☕\n');
    const ok = await uploadFile(t, alice.token, csv, { fileName: 'bank.csv', fileType: 'text/csv', category: 'statement' });
    expect(ok.put!.status).toBe(200);
    const got = await t.fetch(`/files/${ok.ticket.data.fileId}`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(got.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(got.headers.get('content-disposition')).toMatch(/^attachment; filename="bank.csv"/);

    // 支付宝账单 in GBK, as Alipay exports it.
    const gbk = Buffer.from([0xd6, 0xa7, 0xb8, 0xb6, 0xb1, 0xa6, 0xd5, 0xcb, 0xb5, 0xa5, 0x2c, 0x31, 0x32, 0x2e, 0x33, 0x0a]);
    const g = await uploadFile(t, alice.token, gbk, { fileName: 'alipay.csv', fileType: 'text/csv' });
    expect(g.put!.status).toBe(200);
    const gg = await t.fetch(`/files/${g.ticket.data.fileId}`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(gg.headers.get('content-type')).toBe('text/csv; charset=gb18030');
    expect(new TextDecoder('gb18030').decode(await gg.arrayBuffer())).toBe('支付宝账单,12.3\n');

    const cases: Array<[Buffer, string, RefusalRow]> = [
      [Buffer.from('hello\u0000world'), 'text/plain', filesErrors.rows.bytesNotText],
      [HTML_PAGE, 'text/plain', filesErrors.rows.bytesNotText],
      [Buffer.from('  <svg onload="alert(1)"></svg>'), 'text/csv', filesErrors.rows.bytesNotText],
      [tinyPng(), 'text/plain', filesErrors.rows.bytesOfAnotherType],
      [Buffer.from([0xff, 0xfe, 0x80, 0x81, 0xff]), 'text/plain', filesErrors.rows.bytesOfAnotherType], // read as an MP3 frame
    ];
    for (const [bytes, fileType, row] of cases) {
      const r = await uploadFile(t, alice.token, bytes, { fileName: 'notes.txt', fileType });
      expectRefusal(putAnswer(r), row, { label: bytes.toString('hex').slice(0, 20) });
    }
    expect(tmpNames(t)).toEqual([]);
  });

  it('refuses size lies in both directions, with or without Content-Length, and keeps nothing', async () => {
    const png = tinyPng();
    const before = storedNames(t).length;
    const shorter = await uploadFile(t, alice.token, png, { fileSize: png.length + 10 });
    expect(shorter.put!.status).toBe(400);
    expect(shorter.putBody!.message).toMatch(/69 bytes but file.upload declared 79/);
    const longer = await uploadFile(t, alice.token, png, { fileSize: png.length - 1 });
    expect(longer.put!.status).toBe(400);

    // Chunked bodies (no Content-Length) are counted while they stream.
    for (const declared of [png.length - 5, png.length + 5]) {
      const ticket = await t.api('file.upload', { fileName: 'a.png', fileType: 'image/png', fileSize: declared }, alice.token);
      const stream = new ReadableStream({
        start(controller) {
          controller.enqueue(png.subarray(0, 30));
          controller.enqueue(png.subarray(30));
          controller.close();
        },
      });
      const put = await fetch(t.url + String(ticket.data.uploadUrl), { method: 'PUT', body: stream, duplex: 'half' } as RequestInit);
      expectRefusal(await answerOf(put), filesErrors.rows.sizeMismatch, { label: `declared ${declared}` });
      const retry = await putBytes(t.url + String(ticket.data.uploadUrl), png);
      expect(retry.status).toBe(404);
    }
    expect(storedNames(t).length).toBe(before);
    expect(tmpNames(t)).toEqual([]);
  });

  it('uses an upload URL once; concurrent PUTs store exactly one', async () => {
    const png = tinyPng();
    const first = await uploadFile(t, alice.token, png);
    expect(first.put!.status).toBe(200);
    const reuse = await putBytes(t.url + String(first.ticket.data.uploadUrl), png);
    expect(reuse.status).toBe(410);
    expect((await reuse.json()).message).toMatch(/already used/);

    const ticket = await t.api('file.upload', { fileName: 'race.png', fileType: 'image/png', fileSize: png.length }, alice.token);
    const answers = await Promise.all(Array.from({ length: 4 }, () => putBytes(t.url + String(ticket.data.uploadUrl), png)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 410, 410, 410]);
  });

  it('keeps the pending file when the client drops mid-body, so the same URL can be retried', async () => {
    const png = tinyPng();
    const ticket = await t.api('file.upload', { fileName: 'flaky.png', fileType: 'image/png', fileSize: png.length }, alice.token);
    const { port } = new URL(t.url);
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => {
        socket.write(`PUT ${ticket.data.uploadUrl} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${png.length}\r\n\r\n`);
        socket.write(png.subarray(0, 30), () => setTimeout(() => socket.destroy(), 50));
      });
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    // A retry waits for the dropped upload to be cleaned up (same per-file lock), then succeeds.
    const retry = await putBytes(t.url + String(ticket.data.uploadUrl), png);
    expect(retry.status).toBe(200);
    expect(tmpNames(t)).toEqual([]);
  });

  it('expires upload URLs (410) and forgets the pending file; altered URLs get 403', async () => {
    const png = tinyPng();
    const ticket = await t.api('file.upload', { fileName: 'late.png', fileType: 'image/png', fileSize: png.length }, alice.token);
    const tampered: string = ticket.data.uploadUrl.replace(/sig=.{4}/, 'sig=AAAA');
    expect((await putBytes(t.url + tampered, png)).status).toBe(403);
    const moved: string = ticket.data.uploadUrl.replace(/expires=(\d+)/, (_: string, n: string) => `expires=${Number(n) + 60_000}`);
    expect((await putBytes(t.url + moved, png)).status).toBe(403);

    clock.advance(900_000);
    const late = await putBytes(t.url + String(ticket.data.uploadUrl), png);
    expect(late.status).toBe(410);
    expect((await late.json()).message).toMatch(/expired/);
    expect((await putBytes(t.url + String(ticket.data.uploadUrl), png)).status).toBe(404);
    expectRefusal(await t.api('file.delete', { fileId: ticket.data.fileId }, alice.token), filesErrors.rows.fileNotFound);
  });

  it('sweeps pending files whose upload URL expired', async () => {
    const ticket = await t.api('file.upload', { fileName: 'never.png', fileType: 'image/png', fileSize: 10 }, alice.token);
    expect(await t.server.app.services.files.findOwned(alice.id, ticket.data.fileId)).not.toBeNull();
    await t.server.app.services.files.sweep(false);
    expect(await t.server.app.services.files.findOwned(alice.id, ticket.data.fileId)).not.toBeNull();
    clock.advance(900_001);
    await t.server.app.services.files.sweep(false);
    expect(await t.server.app.services.files.findOwned(alice.id, ticket.data.fileId)).toBeNull();
  });

  it('reports missing bytes as such: 410 with 5001, missing: true in lists and attachments', async () => {
    const { ticket } = await uploadFile(t, alice.token, tinyPng(), { fileName: 'gone.png', category: 'lost' });
    const id = ticket.data.fileId;
    rmSync(path.join(t.dataDir, 'files', id));
    const get = await t.fetch(`/files/${id}`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(get.headers.get('content-type')).toMatch(/application\/json/);
    const gone = await answerOf(get);
    expectRefusal(gone, filesErrors.rows.bytesNotHere);
    expect(gone.data).toMatchObject({ fileId: id, missing: true });
    const list = await t.api('file.query', { category: 'lost' }, alice.token);
    expect(list.data.list[0]).toMatchObject({ fileId: id, missing: true });
    const [described] = await t.server.app.services.files.describe(alice.id, [id]);
    expect(described).toMatchObject({ fileId: id, fileName: 'gone.png', missing: true });

    // Truncated bytes are not served either.
    const other = (await uploadFile(t, alice.token, tinyPng())).ticket.data.fileId;
    writeFileSync(path.join(t.dataDir, 'files', other), Buffer.alloc(0));
    const empty = await t.fetch(`/files/${other}`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(empty.status).toBe(410);
  });

  it('deletes metadata and bytes; a file attached to records needs force', async () => {
    const { ticket } = await uploadFile(t, alice.token, tinyPdf(), { fileName: 'statement', fileType: 'application/pdf' });
    const id = ticket.data.fileId;
    const served = await t.fetch(`/files/${id}`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(served.headers.get('content-disposition')).toBe(`attachment; filename="statement.pdf"; filename*=UTF-8''statement.pdf`);

    const records = t.server.app.db.collection('records');
    const now = clock.now();
    const record = (n: number, attachments: string[], userId = alice.id) =>
      recordDoc(userId, `rec${n}x${now.toString(36)}`, { amount: 100, asset: 'a1', date: now, attachments, createdAt: now, updatedAt: now });
    await records.bulkInsert([record(1, [id]), record(2, ['zzz', id]), record(3, []), record(4, [id], bob.id)]);

    const refused = await t.api('file.delete', { fileId: id }, alice.token);
    expectRefusal(refused, filesErrors.rows.attachedToRecords);
    expect(refused.data).toMatchObject({ fileId: id, records: 2 });
    expect(refused.message).toMatch(/attached to 2 accounting records/);
    expect(existsSync(path.join(t.dataDir, 'files', id))).toBe(true);

    const forced = await t.api('file.delete', { fileId: id, force: true }, alice.token);
    expect(forced).toMatchObject({ status: 200, data: { deleted: true, fileId: id, detachedRecords: 2 } });
    expect(existsSync(path.join(t.dataDir, 'files', id))).toBe(false);
    expect((await t.fetch(`/files/${id}`, { headers: { authorization: `Bearer ${alice.token}` } })).status).toBe(404);
    expectRefusal(await t.api('file.delete', { fileId: id }, alice.token), filesErrors.rows.fileNotFound);
    const described = await t.server.app.services.files.describe(alice.id, [id]);
    expect(described.at(0)?.missing).toBe(true);

    const plain = (await uploadFile(t, alice.token, tinyPng())).ticket.data.fileId;
    expect((await t.api('file.delete', { fileId: plain }, alice.token)).status).toBe(200);
    expect(existsSync(path.join(t.dataDir, 'files', plain))).toBe(false);
  });

  it('assertOwned names the first unknown id; describe keeps the order', async () => {
    const a = (await uploadFile(t, alice.token, tinyPng(), { fileName: 'a.png' })).ticket.data.fileId;
    const b = (await uploadFile(t, alice.token, tinyJpeg(), { fileName: 'b.jpg', fileType: 'image/jpeg' })).ticket.data.fileId;
    await t.server.app.services.files.assertOwned(alice.id, [a, b, a]);
    await t.server.app.services.files.assertOwned(alice.id, []);
    await expect(t.server.app.services.files.assertOwned(alice.id, [a, 'nope', '../x'])).rejects.toMatchObject({
      code: filesErrors.rows.attachmentNotFound.code,
      details: { fileId: 'nope' },
    });
    const described = await t.server.app.services.files.describe(alice.id, [b, 'nope', a]);
    expect(described.map((d) => [d.fileId, d.fileName, d.missing])).toEqual([
      [b, 'b.jpg', false],
      ['nope', '', true],
      [a, 'a.png', false],
    ]);
    expect(described.at(0)?.url).toBe(`/files/${b}`);
    expect(described.at(0)?.signedUrl).toMatch(/\?expires=\d+&sig=/);
  });

  it('gives download names the extension of the stored type', async () => {
    const { ticket } = await uploadFile(t, alice.token, tinyPng(), { fileName: '收据 "x".html' });
    const got = await t.fetch(`/files/${ticket.data.fileId}`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(got.headers.get('content-disposition')).toBe(`inline; filename="__ _x_.html.png"; filename*=UTF-8''%E6%94%B6%E6%8D%AE%20%22x%22.html.png`);
  });
});

describe('files: limits re-checked when the bytes arrive', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  it('applies a lowered maximum size (5002) and a withdrawn type (5003) at the byte upload', async () => {
    const user = await registerUser(t);
    const png = tinyPng();
    const ticket1 = await t.api('file.upload', { fileName: 'a.png', fileType: 'image/png', fileSize: png.length }, user.token);
    const ticket2 = await t.api('file.upload', { fileName: 'b.png', fileType: 'image/png', fileSize: png.length }, user.token);
    t.server.app.settings.update({ files: { maxBytes: 50 } });
    const put1 = await putBytes(t.url + String(ticket1.data.uploadUrl), png);
    const refused1 = await answerOf(put1);
    expectRefusal(refused1, filesErrors.rows.fileTooLarge);
    expect(refused1.data).toMatchObject({ maxBytes: 50 });
    t.server.app.settings.update({ files: { maxBytes: 1000, allowedTypes: ['image/jpeg', 'text/html'] } });
    const put2 = await putBytes(t.url + String(ticket2.data.uploadUrl), png);
    const refused2 = await answerOf(put2);
    expectRefusal(refused2, filesErrors.rows.invalidFileType);
    expect(refused2.data).toMatchObject({ allowedTypes: ['image/jpeg'] });
    // text/html in the settings is ignored: PennyPost never accepts it.
    expectRefusal(await t.api('file.upload', { fileName: 'x.html', fileType: 'text/html', fileSize: 10 }, user.token), filesErrors.rows.invalidFileType);

    // A body larger than the maximum that lies about its size is cut short with 5002.
    t.server.app.settings.update({ files: { maxBytes: 100, allowedTypes: ['image/png'] } });
    const ticket3 = await t.api('file.upload', { fileName: 'c.png', fileType: 'image/png', fileSize: png.length }, user.token);
    const put3 = await putBytes(t.url + String(ticket3.data.uploadUrl), Buffer.concat([png, Buffer.alloc(200)]));
    expectRefusal(await answerOf(put3), filesErrors.rows.uploadTooLarge);
    expect(readdirSync(path.join(t.dataDir, 'files')).filter((n) => n !== '.tmp')).toEqual([]);
  });
});

describe('files: restart and housekeeping', () => {
  it('keeps files across a restart and removes bytes no metadata names', async () => {
    const first = await startTestServer();
    const user = await registerUser(first);
    const { ticket } = await uploadFile(first, user.token, tinyPng());
    const orphan = path.join(first.dataDir, 'files', 'orphan123');
    writeFileSync(orphan, 'x');
    writeFileSync(path.join(first.dataDir, 'files', '.tmp', 'half-upload'), 'x');
    await first.close(true);
    const second = await startTestServer({ dataDir: first.dataDir });
    try {
      const got = await second.fetch(`/files/${ticket.data.fileId}`, { headers: { authorization: `Bearer ${user.token}` } });
      expect(got.status).toBe(200);
      expect(existsSync(orphan)).toBe(false);
      expect(readdirSync(path.join(first.dataDir, 'files', '.tmp'))).toEqual([]);
    } finally {
      await second.close();
      rmSync(first.dataDir, { recursive: true, force: true });
    }
  });
});

describe('files: network policy', () => {
  it('lets LAN callers reach /files/ only with network.lanApi on', () => {
    let settings = normalizeSettings({ network: { lan: true } });
    const policy = networkPolicy(() => settings);
    const call = (pathname: string, method = 'GET') => {
      return callMiddleware(policy, { method, path: pathname, host: '127.0.0.1', remoteAddress: '::ffff:192.168.1.20' }).result;
    };
    expect(call('/files/abc')).toBe(403);
    settings = normalizeSettings({ network: { lan: true, lanApi: true } });
    expect(call('/files/abc')).toBe('next');
    expect(call('/files/abc/upload', 'PUT')).toBe('next');
    // One word such as /filesx is a screen path (index.html) with lanApi on; a deeper path that only starts like /files is not a file route.
    expect(call('/filesx/abc')).toBe(403);
  });
});

describe('files: attachments of accounting records (through the ledger)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  it('attaches own stored files only, shows them with the record, keeps them when the record goes', async () => {
    const alice = await registerUser(t);
    const bob = await registerUser(t);
    const asset = await t.api('asset.create', { name: 'Wallet', type: 'cash', balance: 100, currency: 'USD' }, alice.token);
    expect(asset.status).toBe(200);
    const assetId = asset.data.id;
    const receipt = (await uploadFile(t, alice.token, tinyPng(), { fileName: 'lunch.png', category: 'receipt' })).ticket.data.fileId;
    const bobsFile = (await uploadFile(t, bob.token, tinyPng())).ticket.data.fileId;
    const pending = (await t.api('file.upload', { fileName: 'p.png', fileType: 'image/png', fileSize: 10 }, alice.token)).data.fileId;

    const expense = { type: 'expense', amount: 12.5, category: 'Food', asset: assetId, description: 'Lunch' };
    const refusals: Array<[string[], RefusalRow]> = [
      [[bobsFile], filesErrors.rows.attachmentNotFound],
      [['unknown123'], filesErrors.rows.attachmentNotFound],
      [[pending], filesErrors.rows.attachmentWithoutBytes],
      [[receipt, bobsFile], filesErrors.rows.attachmentNotFound],
    ];
    for (const [bad, row] of refusals) {
      const refused = await t.api('accounting.create', { ...expense, attachments: bad }, alice.token);
      expectRefusal(refused, row, { label: JSON.stringify(bad) });
    }
    const created = await t.api('accounting.create', { ...expense, attachments: [receipt] }, alice.token);
    expect(created.status).toBe(200);
    const recordId = created.data.id;
    const shown = await t.api('accounting.get', { id: recordId }, alice.token);
    expect(shown.data.attachmentDetails).toEqual([expect.objectContaining({ fileId: receipt, fileName: 'lunch.png', fileType: 'image/png', category: 'receipt', missing: false })]);

    expect(await t.api('file.delete', { fileId: receipt }, alice.token)).toMatchObject({ status: 409, data: { records: 1 } });
    expect((await t.api('accounting.delete', { id: recordId }, alice.token)).status).toBe(200);
    // The record is gone, the file is not, and nothing references it any more.
    const stillThere = await t.fetch(`/files/${receipt}`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(stillThere.status).toBe(200);
    expect((await t.api('file.delete', { fileId: receipt }, alice.token)).status).toBe(200);
  });
});
