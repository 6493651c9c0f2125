/**
 * Files and short links benchmark, against a real server on 127.0.0.1 (temp data dir):
 *  - GET /s/{code}: redirects per second under 50 connections, and whether every 302 was counted;
 *  - byte uploads: 1 MiB files one after another, and one 20 MiB file (the default maximum);
 *  - serving a 100 KiB file through its signed link;
 *  - file.delete of an attached-nowhere file for a user with 10 000 records (the records scan).
 * Run with `npm run bench:files-links`. BENCH_SECONDS=10 lengthens the load phases (default 5).
 */
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { pngChunk, tinyPng } from '../../server/test-support/files';
import { registerUser, startTestServer, type TestServer } from '../../server/test-support/test-server';
import { columnWidths, padCells } from '../lib';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

/**
 * A valid PNG of exactly `bytes` bytes: the 1×1 image plus a private chunk of filler. `ascii`
 * filler for the serving test: autocannon decodes every body chunk as UTF-8 text in this process,
 * which costs more than the server's work for random bytes.
 */
function pngOfSize(bytes: number, ascii = false): Buffer {
  const png = tinyPng();
  const data = ascii ? Buffer.alloc(bytes - png.length - 12, 0x41) : randomBytes(bytes - png.length - 12);
  const filler = pngChunk('prVt', data);
  return Buffer.concat([png.subarray(0, 33), filler, png.subarray(33)]);
}

async function upload(t: TestServer, token: string, bytes: Buffer): Promise<{ fileId: string; signedUrl: string }> {
  const ticket = await t.api('file.upload', { fileName: 'bench.png', fileType: 'image/png', fileSize: bytes.length }, token);
  if (ticket.code !== 200) throw new Error(ticket.message);
  const put = await fetch(t.url + (ticket.data.uploadUrl as string), { method: 'PUT', body: new Uint8Array(bytes) });
  const body = await put.json();
  if (body.code !== 200) throw new Error(body.message);
  return { fileId: ticket.data.fileId, signedUrl: body.data.signedUrl };
}

function run(options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error as Error) : resolve(result)));
  });
}

const rows: Array<[string, string, string, string]> = [];
const row = (what: string, value: string, goal: string, met: boolean | null) => rows.push([what, value, goal, met === null ? '' : met ? 'met' : 'MISSED']);

async function main() {
  const t = await startTestServer({ settings: { rateLimit: { apiPerToken: 1_000_000 } } });
  try {
    const user = await registerUser(t);

    // 1. Redirects.
    const { data: link } = await t.api('shortlink.create', { url: 'https://example.com/target' }, user.token);
    const redirects = await run({ url: `${t.url}/s/${link.code}`, connections: 50, amount: 4000 * SECONDS });
    const served = redirects['3xx'];
    const stats = await t.api('shortlink.query', { code: link.code }, user.token);
    row(
      'GET /s/{code} (50 connections)',
      `${Math.round(redirects.requests.average)} req/s, p50 ${redirects.latency.p50} ms, p99 ${redirects.latency.p99} ms`,
      '≥ 2000 req/s',
      redirects.requests.average >= 2000,
    );
    row('  302s served vs counted', `${served} vs ${stats.data.accessCount}`, 'equal', served === stats.data.accessCount);
    row('  errors / non-3xx', `${redirects.errors} / ${redirects.non2xx - served}`, '0', redirects.errors === 0 && redirects.non2xx === served);

    // 2. Uploads.
    const oneMiB = pngOfSize(1024 * 1024);
    const count = 40;
    let started = performance.now();
    for (let i = 0; i < count; i++) await upload(t, user.token, oneMiB);
    let ms = performance.now() - started;
    row(
      `upload 1 MiB × ${count}, sequential`,
      `${(ms / count).toFixed(1)} ms each, ${((count * 1024 * 1024) / 1e6 / (ms / 1000)).toFixed(0)} MB/s`,
      '≥ 50 MB/s',
      (count * 1024 * 1024) / 1e6 / (ms / 1000) >= 50,
    );
    const big = pngOfSize(20 * 1024 * 1024);
    started = performance.now();
    await upload(t, user.token, big);
    ms = performance.now() - started;
    row('upload 20 MiB (the maximum)', `${ms.toFixed(0)} ms, ${((20 * 1024 * 1024) / 1e6 / (ms / 1000)).toFixed(0)} MB/s`, '< 2 s', ms < 2000);

    // 3. Serving through a signed link.
    const small = await upload(t, user.token, pngOfSize(100 * 1024, true));
    const serving = await run({ url: t.url + small.signedUrl, connections: 20, duration: SECONDS });
    row(
      'GET signed file link, 100 KiB (20 connections)',
      `${Math.round(serving.requests.average)} req/s, p99 ${serving.latency.p99} ms, ${(serving.throughput.average / 1e6).toFixed(0)} MB/s`,
      '≥ 500 req/s',
      serving.requests.average >= 500,
    );

    // 4. file.delete with many records to scan.
    const records = t.server.app.db.collection('records');
    const now = Date.now();
    const docs = Array.from({ length: 10_000 }, (_, i) => ({
      id: `bench${i.toString().padStart(6, '0')}`,
      userId: user.id,
      type: 'expense',
      amount: 100,
      asset: 'a1',
      toAsset: '',
      toAmount: 0,
      fee: 0,
      category: 'Food',
      description: '',
      searchText: '',
      date: now - i * 60_000,
      tags: [],
      attachments: i % 10 === 0 ? ['someOtherFile'] : [],
      importKey: '',
      createdAt: now,
      updatedAt: now,
    }));
    for (let i = 0; i < docs.length; i += 1000) await records.bulkInsert(docs.slice(i, i + 1000));
    const victim = await upload(t, user.token, pngOfSize(1000));
    started = performance.now();
    const del = await t.api('file.delete', { fileId: victim.fileId }, user.token);
    ms = performance.now() - started;
    if (del.code !== 200) throw new Error(del.message);
    row('file.delete, user with 10 000 records', `${ms.toFixed(0)} ms`, '< 500 ms', ms < 500);
  } finally {
    await t.close();
  }

  const header = ['measure', 'result', 'goal', ''];
  const widths = columnWidths([header, ...rows]);
  const line = (cells: readonly string[]) => '| ' + padCells(cells, widths).join(' | ') + ' |';
  console.log(line(header));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const r of rows) console.log(line(r));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
