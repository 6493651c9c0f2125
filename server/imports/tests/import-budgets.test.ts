import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { crc32, createDeflateRaw } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import writeXlsxFile from 'write-excel-file/node';
import { startChildServer, type ChildServer } from '../../test-support/child-server';
import { HEALTHZ_BUDGET_MS, RSS_BUDGET_BYTES, watchServer } from '../../test-support/server-watch';
import { tempDataDir } from '../../test-support/test-server';
import { centralRecord, endRecord, localRecord } from '../../test-support/zip-records';
import { importErrors } from '../errors';
import { expectRefusal } from '../../test-support/refusal';

/**
 * Issue 34, findings 2, 3, 5 and 12, and "Also": what one member's hostile import costs a running
 * PennyPost, measured from outside it (server/test-support/server-watch.ts) on a PennyPost in its
 * own process. Every import path a member can drive with large input is held to the budgets of
 * docs/security.md: /healthz answers within 1 s, resident memory rises by at most 200 MB, and the
 * member gets a clear answer in the /api envelope.
 */

const MiB = 1024 * 1024;
const b64 = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64');
/** A part of import.upload: at most 1,000,000 base64 characters. */
const PART = 750_000;

let dataDir: string;
let child: ChildServer;
let pid: number;
let token: string;
let assetId: string;

async function register(name: string): Promise<string> {
  const answer = await child.api('user.register', { username: name, email: `${name}@example.com`, password: 'correct horse battery' });
  expect(answer.code, answer.message).toBe(200);
  return answer.data.token as string;
}

beforeAll(async () => {
  dataDir = tempDataDir('import-budgets');
  child = await startChildServer(dataDir, { rateLimit: { apiPerToken: 1_000_000 } });
  pid = child.child.pid ?? 0;
  token = await register('budgetowner');
  const asset = await child.api('asset.create', { name: 'Bank', type: 'debit_card', currency: 'CNY', balance: 0 }, token);
  expect(asset.code, asset.message).toBe(200);
  assetId = asset.data.id as string;
  // The first import starts the statement-reading thread: that one-time cost is not the request's.
  const warm = await child.api('import.preview', { format: 'qif', content: b64('!Type:Bank\nD01/02/2024\nT-1.00\nPShop\n^\n'), assetId, timeZone: 'UTC' }, token);
  expect(warm.code, warm.message).toBe(200);
}, 90_000);

afterAll(async () => {
  await child.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Runs one hostile request against the child under watch; the budgets must hold. */
async function withinBudgets<T>(label: string, request: () => Promise<T>): Promise<T> {
  const watched = await watchServer(child.url, pid, request);
  console.log(`${label}: worst /healthz ${watched.worstHealthzMs} ms, RSS rise ${(watched.rssRise / MiB).toFixed(1)} MB`);
  expect(watched.healthzAnswers, label).toBeGreaterThan(0);
  expect(watched.worstHealthzMs, label).toBeLessThan(HEALTHZ_BUDGET_MS);
  expect(watched.rssRise, label).toBeLessThan(RSS_BUDGET_BYTES);
  return watched.result;
}

/** Sends a file in parts (import.upload) and previews it. */
async function uploadAndPreview(format: string, bytes: Buffer, extra: Record<string, unknown> = {}) {
  let uploadId: string | undefined;
  for (let at = 0; at < bytes.length; at += PART) {
    const part = await child.api('import.upload', { content: b64(bytes.subarray(at, at + PART)), ...(uploadId ? { uploadId } : {}) }, token);
    expect(part.code, part.message).toBe(200);
    uploadId = part.data.uploadId as string;
  }
  return child.api('import.preview', { format, uploadId, assetId, timeZone: 'UTC', ...extra }, token);
}

const OFX_HEADER = 'OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\nCHARSET:1252\n\n';

describe('finding 2: hostile statements are read off the server thread, in linear time', () => {
  it('512 KB of nested OFX tags (held every request for 47 s)', async () => {
    let body = '';
    for (let i = 0; body.length < 512 * 1024; i++) body += `<T${i.toString(36)}>`;
    const file = `${OFX_HEADER}<OFX>${body}</OFX>`;
    const answer = await withinBudgets('nested OFX', () => child.api('import.preview', { format: 'ofx', content: b64(file), assetId, timeZone: 'UTC' }, token));
    expectRefusal(answer, importErrors.rows.unreadableStatement);
    expect(answer.data).toMatchObject({ kind: 'empty' });
    expect(answer.message).toMatch(/OFX file cannot be imported: The OFX file holds no bank or credit card statement/);
  }, 120_000);

  it('512 KB of CAMT markup that never ends', async () => {
    const file = `<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>${'<a b="1" '.repeat(58_000)}`;
    const answer = await withinBudgets('unterminated CAMT', () => child.api('import.preview', { format: 'camt', content: b64(file), assetId, timeZone: 'UTC' }, token));
    expectRefusal(answer, importErrors.rows.unreadableStatement);
    expect(answer.data).toMatchObject({ kind: 'truncated' });
    expect(answer.message).toMatch(/a tag is cut off/);
  }, 120_000);

  it('QIF, Alipay, WeChat Pay and mapped CSV files made to be slow', async () => {
    const run = ' \'"'.repeat(170_000);
    const cases: Array<[string, string, Record<string, unknown>?]> = [
      ['qif', `!Type:Bank\nD01/02/2024\nT1${run}2\n^\n`],
      [
        'alipay',
        `交易号,商家订单号,交易创建时间,付款时间,最近修改时间,交易来源地,类型,交易对方,商品名称,金额（元）,收/支,交易状态,服务费（元）,成功退款（元）,备注,资金状态\n1,T1,2024-01-05 10:00:00,,,其他,即时到账交易,商店,咖啡,1${run}2,支出,交易成功,0,0,,已支出\n`,
      ],
      [
        'wechat',
        `交易时间,交易类型,交易对方,商品,收/支,金额(元),支付方式,当前状态,交易单号,商户单号,备注\n2024-01-05 10:00:00,商户消费,商店,咖啡,支出,¥1${run}2,零钱,支付成功,X1,,/\n`,
      ],
      ['csv', `Date,Amount,Payee\n2024-01-05,${',1a'.repeat(170_000)}5,Shop\n`, { mapping: { date: 0, amount: 1, payee: 2 } }],
    ];
    for (const [format, text, extra] of cases) {
      const bytes = Buffer.from(text);
      const answer = await withinBudgets(`slow ${format}`, () => uploadAndPreview(format, bytes, extra));
      expect(answer.status, `${format}: ${answer.message}`).toBe(200);
      expect(answer.data.summary.invalid, format).toBe(1);
    }
    const describeAnswer = await withinBudgets('describeCsv of a long header', async () => {
      const bytes = Buffer.from(`${'Date   :'.repeat(100_000)},Amount\n2024-01-05,1\n`);
      const part = await child.api('import.upload', { content: b64(bytes.subarray(0, PART)) }, token);
      return child.api('import.describeCsv', { uploadId: part.data.uploadId }, token);
    });
    expect(describeAnswer.status, describeAnswer.message).toBe(200);
    expect((describeAnswer.data.headers[0] as string).length).toBeLessThan(300);
  }, 180_000);
});

/** `size` bytes of zeros, deflated (1,000 MiB → about 1 MB), and their CRC-32. */
async function deflatedZeros(size: number): Promise<{ data: Buffer; crc: number }> {
  const deflate = createDeflateRaw({ level: 9 });
  const chunks: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => chunks.push(chunk));
  const zeros = Buffer.alloc(MiB);
  let crc = 0;
  for (let left = size; left > 0; left -= MiB) {
    const piece = left >= MiB ? zeros : zeros.subarray(0, left);
    crc = crc32(piece, crc);
    if (!deflate.write(piece)) await once(deflate, 'drain');
  }
  deflate.end();
  await once(deflate, 'end');
  return { data: Buffer.concat(chunks), crc };
}

/** A local ZIP entry (header and data) that no table of contents lists. */
function hiddenEntry(name: string, zeros: { data: Buffer; crc: number }, size: number): Buffer {
  return Buffer.concat([localRecord({ name, crc: zeros.crc, stored: zeros.data.length, declared: size }), zeros.data]);
}

/** `xlsx` with `hidden` inserted before its central directory (whose offset the end record then names anew). */
function withHiddenEntries(xlsx: Buffer, hidden: Buffer[]): Buffer {
  const end = xlsx.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const centralAt = xlsx.readUInt32LE(end + 16);
  const inserted = Buffer.concat(hidden);
  const out = Buffer.concat([xlsx.subarray(0, centralAt), inserted, xlsx.subarray(centralAt)]);
  out.writeUInt32LE(centralAt + inserted.length, end + inserted.length + 16);
  return out;
}

describe('finding 3: the XLSX unpack budget holds for the bytes the spreadsheet reader inflates', () => {
  it('a 2 MB WeChat XLSX with hidden 1,000 MiB entries (took the server to 2.2 GB) is refused, memory within budget', async () => {
    const sheet = await writeXlsxFile([
      ['微信支付账单明细'],
      ['交易时间', '交易类型', '交易对方', '商品', '收/支', '金额(元)', '支付方式', '当前状态', '交易单号', '商户单号', '备注'],
    ]).toBuffer();
    const size = 1000 * MiB;
    const zeros = await deflatedZeros(size);
    const bomb = withHiddenEntries(sheet, [hiddenEntry('xl/hidden1.xml', zeros, size), hiddenEntry('xl/hidden2.xml', zeros, size)]);
    expect(bomb.length).toBeLessThan(2.5 * MiB);
    const answer = await withinBudgets('XLSX with hidden entries', () => uploadAndPreview('wechat', bomb));
    expectRefusal(answer, importErrors.rows.unreadableStatement);
    expect(answer.data).toMatchObject({ kind: 'truncated' });
    expect(answer.message).toMatch(/holds data its table of contents does not list/);
  }, 180_000);

  it('a listed entry that unpacks past the size it declares, or declares more than the budget, is refused', async () => {
    const size = 300 * MiB;
    const zeros = await deflatedZeros(size);
    for (const [label, declared] of [
      ['lying', 100],
      ['honest', size],
    ] as const) {
      const entry = hiddenEntry('xl/sharedStrings.xml', zeros, declared);
      const directory = centralRecord({ name: 'xl/sharedStrings.xml', crc: zeros.crc, stored: zeros.data.length, declared }, 0);
      const bomb = Buffer.concat([entry, directory, endRecord(1, directory.length, entry.length)]);
      const answer = await withinBudgets(`XLSX bomb, ${label} about its size`, () => uploadAndPreview('wechat', bomb));
      expect(answer.status, label).toBe(400);
      expect(answer.data, label).toMatchObject({ kind: 'tooLarge' });
      expect(answer.message, label).toMatch(/unpacks to more than 100 MB/);
    }
  }, 180_000);
});

describe('finding 5: rules cannot stall the server', () => {
  /** A regular expression the linear-time engine takes ~40 µs per character for. */
  const SLOW = `${'(?:(?:x+)+)+'.repeat(8)}y`;
  const alipay = (rows: string[]) =>
    Buffer.from(
      `交易号,商家订单号,交易创建时间,付款时间,最近修改时间,交易来源地,类型,交易对方,商品名称,金额（元）,收/支,交易状态,服务费（元）,成功退款（元）,备注,资金状态\n${rows.join('\n')}\n`,
    );
  const row = (i: number, goods: string) => `A${i},T${i},2024-01-05 10:00:00,,,其他,即时到账交易,商店,${goods},1.00,支出,交易成功,0,0,,已支出`;

  beforeAll(async () => {
    for (let i = 0; i < 10; i++) {
      const rule = await child.api('rule.create', { match: { field: 'description', op: 'regex', value: SLOW }, set: { tags: [`slow${i}`] } }, token);
      expect(rule.code, rule.message).toBe(200);
    }
  });

  it('10 slow rules and one 100 KB memo (froze the server 29 s): the line is refused before any rule reads it', async () => {
    const file = alipay([row(1, 'x'.repeat(100_000)), row(2, 'coffee')]);
    const answer = await withinBudgets('rules and a 100 KB memo', () => child.api('import.preview', { format: 'alipay', content: b64(file), assetId, timeZone: 'UTC' }, token));
    expect(answer.status, answer.message).toBe(200);
    expect(answer.data.summary).toMatchObject({ lines: 2, create: 1, invalid: 1 });
    expect(answer.data.invalid[0]).toMatchObject({ line: 2, kind: 'tooLong' });
  }, 120_000);

  it('slow rules over many lines of the longest text: the server thread is given back between rules', async () => {
    const file = alipay(Array.from({ length: 40 }, (_, i) => row(i, 'x'.repeat(950 + i))));
    const answer = await withinBudgets('slow rules on 40 long lines', () => child.api('import.preview', { format: 'alipay', content: b64(file), assetId, timeZone: 'UTC' }, token));
    expect(answer.status, answer.message).toBe(200);
    expect(answer.data.summary.lines).toBe(40);
  }, 180_000);
});

describe('a large import, previewed and committed', () => {
  it('10,000 lines: the preview and the commit keep /healthz and memory within budget', async () => {
    const rows = ['交易号,商家订单号,交易创建时间,付款时间,最近修改时间,交易来源地,类型,交易对方,商品名称,金额（元）,收/支,交易状态,服务费（元）,成功退款（元）,备注,资金状态'];
    for (let i = 0; i < 10_000; i++)
      rows.push(
        `B${i},M${i},2026-01-${String(1 + (i % 28)).padStart(2, '0')} 10:00:00,,,其他,即时到账交易,商店${i % 97},商品${i},${(1 + (i % 500) / 100).toFixed(2)},支出,交易成功,0,0,,已支出`,
      );
    const bill = Buffer.from(`${rows.join('\n')}\n`);
    const preview = await withinBudgets('preview of 10,000 lines', () => uploadAndPreview('alipay', bill));
    expect(preview.status, preview.message).toBe(200);
    expect(preview.data.summary.create).toBe(10_000);
    const commit = await withinBudgets('commit of 10,000 lines', () => child.api('import.commit', { token: preview.data.token }, token));
    expect(commit.status, commit.message).toBe(200);
    expect(commit.data.created).toBe(10_000);
  }, 180_000);
});

// Last: the uploads it leaves fill the cap for the next 30 minutes.
describe('finding 12: held uploads have a cap for all accounts together', () => {
  it('past 128 MiB of uploads an upload answers 503 "busy, try later", memory within budget', async () => {
    const accounts = [await register('uploader1'), await register('uploader2'), await register('uploader3')];
    const part = b64(Buffer.alloc(PART, 0x41));
    const answers = await withinBudgets('uploads of three accounts', async () => {
      const last: Array<{ status: number; message: string; bytes?: number }> = [];
      for (const account of accounts) {
        let uploadId: string | undefined;
        let answer = { status: 0, message: '', data: {} as any };
        for (let sent = 0; sent + PART <= 64 * MiB; sent += PART) {
          answer = await child.api('import.upload', { content: part, ...(uploadId ? { uploadId } : {}) }, account);
          if (answer.status !== 200) break;
          uploadId = answer.data.uploadId as string;
        }
        last.push({ status: answer.status, message: answer.message, bytes: answer.data?.bytes as number | undefined });
      }
      return last;
    });
    expect(answers[0]).toMatchObject({ status: 200 });
    expect(answers[1]).toMatchObject({ status: 200 });
    expect(answers.at(2)?.status).toBe(503);
    expect(answers.at(2)?.message).toMatch(/busy .*try again/);
  }, 300_000);
});
