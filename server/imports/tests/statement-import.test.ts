import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock';
import { assetBalance, createAsset } from '../../test-support/ledger';
import { registerUser, startTestServer, type TestServer } from '../../test-support/test-server';
import { commonErrors } from '../../lib/errors';
import { ledgerErrors } from '../../ledger/errors';
import { importErrors } from '../errors';
import { expectRefusal } from '../../test-support/refusal';
import { alipayExport } from './alipay-export';

/**
 * Issue 22: statement imports through /api — preview, commit, idempotency (the same file twice,
 * and the same payment in an Alipay file and a bank file), the status rules, overrides, uploads in
 * parts, saved CSV mappings, and bad input that changes nothing. The Alipay layout is the app
 * export's (导出信息 … 电子客户回单), as described in server/imports/formats/alipay.ts.
 */

type User = Awaited<ReturnType<typeof registerUser>>;

const clock = new ManualClock(Date.UTC(2026, 10, 27, 12));
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ clock });
});
afterAll(() => t.close());

const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64');

function alipayFile(rows: readonly string[]): string {
  return alipayExport(rows, [
    '------------------------------------------------------------------------------------',
    '导出信息：',
    '姓名：张三',
    '支付宝账户：zhang***@example.com',
    '起始时间：[2026-11-01 00:00:00]    终止时间：[2026-11-27 23:59:59]',
    '导出交易类型：[全部]',
  ]);
}

const ALIPAY_ROWS = [
  '2026-11-20 12:30:00,餐饮美食,星巴克,sb***@example.com,拿铁,支出,32.00,招商银行信用卡(1234),交易成功,2026112022001400001\t,T2001\t,,',
  '2026-11-21 09:00:00,日用百货,超市,sm***@example.com,日用品,支出,58.50,余额,交易成功,2026112122001400002\t,T2002\t,,',
  '2026-11-22 10:00:00,服饰装扮,服装店,cl***@example.com,外套,支出,199.00,余额,交易关闭,2026112222001400003\t,T2003\t,,',
  '2026-11-22 18:00:00,退款,服装店,cl***@example.com,退款-外套,不计收支,199.00,余额,退款成功,2026112222001400003_1\t,T2003\t,,',
  '2026-11-23 08:00:00,投资理财,余额宝,/,余额宝-转入,不计收支,500.00,余额,交易成功,2026112322001400005\t,\t,,',
  '2026-11-24 20:00:00,餐饮美食,=HYPERLINK("http://x"),hy***@example.com,晚餐,支出,45.00,余额,交易成功,2026112422001400006\t,T2006\t,,',
  '2026-11-25 20:00:00,餐饮美食,面馆,nd***@example.com,午餐,支出,等待中,余额,交易成功,2026112522001400007\t,T2007\t,,',
] as const;

async function ok<T = any>(action: string, params: Record<string, unknown>, u: User): Promise<T> {
  const answer = await t.api(action, params, u.token);
  if (answer.code !== 200) throw new Error(`${action}: ${answer.code} ${answer.message}`);
  return answer.data as T;
}

async function recordCount(u: User): Promise<number> {
  return (await ok<{ total: number }>('accounting.query', { page: 1, pageSize: 1 }, u)).total;
}

describe('import.preview and import.commit: an Alipay bill', () => {
  it('previews what a bookkeeper would book, commits it, and imports nothing new the second time', async () => {
    const u = await registerUser(t);
    const alipay = await createAsset(t, u, { name: '支付宝', currency: 'CNY', balance: 1000 });
    const card = await createAsset(t, u, { name: '招行信用卡 1234', type: 'credit_card', currency: 'CNY' });
    const file = b64(alipayFile(ALIPAY_ROWS));
    const preview = await ok('import.preview', { format: 'alipay', content: file, assetId: alipay, timeZone: 'Asia/Shanghai' }, u);
    expect(preview.summary).toMatchObject({ lines: 7, create: 3, duplicate: 0, likelyDuplicate: 0, skipped: 3, invalid: 1 });
    const byLine = Object.fromEntries(preview.create.map((l: any) => [l.description, l]));
    // Paid with the credit card 1234: the record goes to that asset, not to the Alipay balance.
    expect(byLine['星巴克 — 拿铁']).toMatchObject({ asset: card, type: 'expense', amount: 32, date: Date.UTC(2026, 10, 20, 4, 30) });
    expect(byLine['超市 — 日用品']).toMatchObject({ asset: alipay, amount: 58.5 });
    const skipped = Object.fromEntries(preview.skipped.map((l: any) => [l.externalId, l.skipReason]));
    expect(skipped).toEqual({
      '2026112222001400003': 'closed',
      '2026112222001400003_1': 'refundOfClosed',
      '2026112322001400005': 'ownTransfer',
    });
    expect(preview.invalid).toHaveLength(1);
    expect(preview.invalid[0].reason).toMatch(/等待中/);
    expect(await recordCount(u)).toBe(0); // a preview writes nothing

    const committed = await ok('import.commit', { token: preview.token }, u);
    expect(committed).toMatchObject({ created: 3, alreadyImported: 0 });
    expect(await recordCount(u)).toBe(3);
    expect(await assetBalance(t, u, alipay)).toBe(1000 - 58.5 - 45);
    expect(await assetBalance(t, u, card)).toBe(-32);

    // The same file again: every line is a duplicate, nothing to create; committing writes nothing.
    const again = await ok('import.preview', { format: 'alipay', content: file, assetId: alipay, timeZone: 'Asia/Shanghai' }, u);
    expect(again.summary).toMatchObject({ create: 0, duplicate: 3, likelyDuplicate: 0 });
    expect((await ok('import.commit', { token: again.token }, u)).created).toBe(0);
    expect(await recordCount(u)).toBe(3);
    // A used token is gone.
    const reused = await t.api('import.commit', { token: preview.token }, u.token);
    expectRefusal(reused, importErrors.rows.previewExpired);
  });

  it('keeps a formula-looking payee as text and exports it neutralised', async () => {
    const u = await registerUser(t);
    const alipay = await createAsset(t, u, { name: '支付宝', currency: 'CNY' });
    const preview = await ok('import.preview', { format: 'alipay', content: b64(alipayFile([ALIPAY_ROWS[5]])), assetId: alipay }, u);
    await ok('import.commit', { token: preview.token }, u);
    const csv = (await ok<{ csv: string }>('accounting.exportCsv', {}, u)).csv;
    expect(csv).toContain(`"'=HYPERLINK(""http://x"") — 晚餐"`);
  });

  it('counts a refund of a payment that was not closed as income, in the Refund category', async () => {
    const u = await registerUser(t);
    const alipay = await createAsset(t, u, { name: '支付宝', currency: 'CNY', balance: 100 });
    const rows = [
      '2026-11-10 12:00:00,服饰装扮,鞋店,sh***@example.com,鞋,支出,80.00,余额,交易成功,2026111022001400010\t,T10\t,,',
      '2026-11-12 12:00:00,退款,鞋店,sh***@example.com,退款-鞋,不计收支,30.00,余额,退款成功,2026111022001400010_1\t,T10\t,,',
    ];
    const preview = await ok('import.preview', { format: 'alipay', content: b64(alipayFile(rows)), assetId: alipay }, u);
    expect(preview.summary).toMatchObject({ create: 2, skipped: 0 });
    const refund = preview.create.find((l: any) => l.refund);
    expect(refund).toMatchObject({ type: 'income', amount: 30, category: 'Refund' });
    await ok('import.commit', { token: preview.token }, u);
    expect(await assetBalance(t, u, alipay)).toBe(100 - 80 + 30);
  });
});

describe('the same payment in two files', () => {
  const ofx = (amount: string, date: string, fitid: string) =>
    [
      'OFXHEADER:100',
      'DATA:OFXSGML',
      'VERSION:102',
      'SECURITY:NONE',
      'ENCODING:USASCII',
      'CHARSET:1252',
      'COMPRESSION:NONE',
      'OLDFILEUID:NONE',
      'NEWFILEUID:NONE',
      '',
      '<OFX><CREDITCARDMSGSRSV1><CCSTMTTRNRS><TRNUID>1<STATUS><CODE>0<SEVERITY>INFO</STATUS>',
      '<CCSTMTRS><CURDEF>CNY<CCACCTFROM><ACCTID>6225881234</CCACCTFROM>',
      '<BANKTRANLIST><DTSTART>20261101<DTEND>20261130',
      `<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>${date}<TRNAMT>-${amount}<FITID>${fitid}<NAME>ALIPAY STARBUCKS</STMTTRN>`,
      '</BANKTRANLIST></CCSTMTRS></CCSTMTTRNRS></CREDITCARDMSGSRSV1></OFX>',
      '',
    ].join('\r\n');

  it('flags a card payment seen in the Alipay bill and again in the bank file as a likely duplicate', async () => {
    const u = await registerUser(t);
    const alipay = await createAsset(t, u, { name: '支付宝', currency: 'CNY' });
    const card = await createAsset(t, u, { name: '招行信用卡 1234', type: 'credit_card', currency: 'CNY' });
    const first = await ok('import.preview', { format: 'alipay', content: b64(alipayFile([ALIPAY_ROWS[0]])), assetId: alipay, timeZone: 'Asia/Shanghai' }, u);
    await ok('import.commit', { token: first.token }, u);

    const bank = await ok('import.preview', { format: 'ofx', content: b64(ofx('32.00', '20261121', 'F1')), assetId: card, timeZone: 'Asia/Shanghai' }, u);
    expect(bank.summary).toMatchObject({ create: 0, likelyDuplicate: 1, duplicate: 0 });
    expect(bank.duplicates[0]).toMatchObject({ line: expect.any(Number), amount: 32, matchId: expect.any(String), reason: expect.stringMatching(/likely the same payment/) });
    expect((await ok('import.commit', { token: bank.token }, u)).created).toBe(0);
    expect(await recordCount(u)).toBe(1);

    // The person says it is another payment: included, it is written; a re-import then knows it.
    const again = await ok('import.preview', { format: 'ofx', content: b64(ofx('32.00', '20261121', 'F1')), assetId: card, timeZone: 'Asia/Shanghai' }, u);
    const line = again.duplicates[0].line as number;
    expect((await ok('import.commit', { token: again.token, overrides: [{ line, include: true }] }, u)).created).toBe(1);
    const third = await ok('import.preview', { format: 'ofx', content: b64(ofx('32.00', '20261121', 'F1')), assetId: card }, u);
    expect(third.summary).toMatchObject({ duplicate: 1, likelyDuplicate: 0, create: 0 });
    const refused = await t.api('import.commit', { token: third.token, overrides: [{ line, include: true }] }, u.token);
    expectRefusal(refused, importErrors.rows.overrideNotAllowed);
    expect(await recordCount(u)).toBe(2);
  });

  it('does not take two different payments of the same amount from one source for duplicates', async () => {
    const u = await registerUser(t);
    const card = await createAsset(t, u, { name: 'Card', currency: 'CNY' });
    await ok('import.commit', { token: (await ok('import.preview', { format: 'ofx', content: b64(ofx('9.00', '20261110', 'A')), assetId: card }, u)).token }, u);
    const next = await ok('import.preview', { format: 'ofx', content: b64(ofx('9.00', '20261111', 'B')), assetId: card }, u);
    expect(next.summary).toMatchObject({ create: 1, likelyDuplicate: 0 });
  });
});

describe('overrides, uploads in parts, saved CSV mappings', () => {
  it('imports money between own accounts as a transfer when asked, and leaves lines out', async () => {
    const u = await registerUser(t);
    const alipay = await createAsset(t, u, { name: '支付宝', currency: 'CNY', balance: 1000 });
    const yuebao = await createAsset(t, u, { name: '余额宝', currency: 'CNY' });
    const preview = await ok('import.preview', { format: 'alipay', content: b64(alipayFile([ALIPAY_ROWS[1], ALIPAY_ROWS[4]])), assetId: alipay }, u);
    const transferLine = preview.skipped[0].line as number;
    const shopLine = preview.create[0].line as number;
    const noTarget = await t.api('import.commit', { token: preview.token, overrides: [{ line: transferLine, include: true }] }, u.token);
    expectRefusal(noTarget, importErrors.rows.overrideNotAllowed);
    expect(noTarget.data.field).toMatch(/toAsset/);
    expect(await recordCount(u)).toBe(0);
    const done = await ok(
      'import.commit',
      {
        token: preview.token,
        overrides: [
          { line: transferLine, include: true, toAsset: yuebao },
          { line: shopLine, include: false },
        ],
      },
      u,
    );
    expect(done).toMatchObject({ created: 1, leftOut: 1 });
    expect(await assetBalance(t, u, yuebao)).toBe(500);
    expect(await assetBalance(t, u, alipay)).toBe(500);
  });

  it('takes a file in parts and a generic CSV whose mapping is remembered for the next file of that bank', async () => {
    const u = await registerUser(t);
    const bank = await createAsset(t, u, { name: 'Checking', currency: 'USD', balance: 100 });
    const csv = 'Date,Description,Amount,Id\n2026-11-01,Coffee,-3.50,X1\n2026-11-02,Salary,1000.00,X2\n';
    const bytes = Buffer.from(csv);
    const first = await ok('import.upload', { content: bytes.subarray(0, 20).toString('base64') }, u);
    const second = await ok('import.upload', { content: bytes.subarray(20).toString('base64'), uploadId: first.uploadId }, u);
    expect(second.bytes).toBe(bytes.length);
    const described = await ok('import.describeCsv', { uploadId: first.uploadId }, u);
    expect(described.headers).toEqual(['Date', 'Description', 'Amount', 'Id']);
    expect(described.guess).toMatchObject({ date: 0, amount: 2 });
    const missing = await t.api('import.preview', { format: 'csv', uploadId: first.uploadId, assetId: bank }, u.token);
    expectRefusal(missing, importErrors.rows.mappingNeeded);
    expect(missing.data.headers).toEqual(['Date', 'Description', 'Amount', 'Id']);
    const mapping = { date: 0, description: 1, amount: 2, externalId: 3 };
    const preview = await ok('import.preview', { format: 'csv', content: b64(csv), assetId: bank, mapping }, u);
    expect(preview.summary).toMatchObject({ create: 2 });
    await ok('import.commit', { token: preview.token }, u);
    expect(await assetBalance(t, u, bank)).toBe(100 - 3.5 + 1000);
    // Next month's file from the same bank: no mapping needed, and the old lines are duplicates.
    const next = 'Date,Description,Amount,Id\n2026-11-02,Salary,1000.00,X2\n2026-12-01,Tea,-2.00,X3\n';
    const remembered = await ok('import.preview', { format: 'csv', content: b64(next), assetId: bank }, u);
    expect(remembered.summary).toMatchObject({ create: 1, duplicate: 1 });
    expect((await ok('import.describeCsv', { content: b64(next) }, u)).saved).toMatchObject(mapping);
    // A bank whose export starts with lines before the header (skipRows): remembered as well.
    const preamble = 'Account: 12345678\nStatement 2026-11\n\nDate;Text;Value\n2026-11-05;Rent;-500,00\n';
    const semicolons = { date: 0, description: 1, amount: 2, skipRows: 3, delimiter: ';', decimal: ',' };
    expect((await ok('import.preview', { format: 'csv', content: b64(preamble), assetId: bank, mapping: semicolons }, u)).summary.create).toBe(1);
    expect((await ok('import.preview', { format: 'csv', content: b64(preamble), assetId: bank }, u)).summary.create).toBe(1);
    const describedAgain = await ok('import.describeCsv', { content: b64(preamble) }, u);
    expect([describedAgain.headers, describedAgain.saved]).toEqual([['Date', 'Text', 'Value'], semicolons]);
    // One upload at a time per account: a new one drops an unfinished one.
    const a = await ok('import.upload', { content: b64(next) }, u);
    await ok('import.upload', { content: b64(next) }, u);
    expectRefusal(await t.api('import.preview', { format: 'csv', uploadId: a.uploadId, assetId: bank }, u.token), importErrors.rows.uploadExpired);
  });
});

describe('bad input changes nothing', () => {
  it('answers clear errors for unreadable files, bad params and other accounts', async () => {
    const u = await registerUser(t);
    const other = await registerUser(t);
    const asset = await createAsset(t, u, { name: 'A', currency: 'CNY' });
    const theirs = await createAsset(t, other, { name: 'B', currency: 'CNY' });
    const cases: Array<[Record<string, unknown>, { readonly code: number; readonly status: number }, RegExp]> = [
      [{ format: 'alipay', content: b64('Date,Amount\n2026-01-01,5\n'), assetId: asset }, importErrors.rows.unreadableStatement, /Alipay/],
      [{ format: 'ofx', content: b64('<html>hello</html>'), assetId: asset }, importErrors.rows.unreadableStatement, /OFX/],
      [{ format: 'camt', content: b64('<?xml version="1.0"?><Document><BkToCstmrStmt><Stmt><Ntry>'), assetId: asset }, importErrors.rows.unreadableStatement, /CAMT/],
      [{ format: 'alipay', content: '%%%not base64%%%', assetId: asset }, importErrors.rows.notBase64, /base64/],
      [{ format: 'alipay', assetId: asset }, importErrors.rows.needsContent, /content/],
      [{ format: 'pdf', content: b64('x'), assetId: asset }, commonErrors.rows.invalid, /format/],
      [{ format: 'alipay', content: b64(alipayFile([ALIPAY_ROWS[0]])), assetId: theirs }, ledgerErrors.rows.assetNotFound, /Asset not found/],
      [{ format: 'alipay', content: b64(alipayFile([ALIPAY_ROWS[0]])), assetId: asset, timeZone: 'Mars/Base' }, importErrors.rows.unknownImportTimeZone, /time zone/],
    ];
    for (const [params, row, message] of cases) {
      const answer = await t.api('import.preview', params, u.token);
      expectRefusal(answer, row, { label: message.source });
      expect(answer.message).toMatch(message);
    }
    const preview = await ok('import.preview', { format: 'alipay', content: b64(alipayFile([ALIPAY_ROWS[0]])), assetId: asset }, u);
    // Another account cannot commit (or learn about) this preview.
    expectRefusal(await t.api('import.commit', { token: preview.token }, other.token), importErrors.rows.previewExpired);
    expectRefusal(await t.api('import.commit', { token: preview.token, overrides: [{ line: 999 }] }, u.token), importErrors.rows.unknownLine);
    expect(await recordCount(u)).toBe(0);
    expect(await recordCount(other)).toBe(0);
    // Previews expire.
    clock.advance(31 * 60_000);
    expectRefusal(await t.api('import.commit', { token: preview.token }, u.token), importErrors.rows.previewExpired);
  });
});

describe('review findings (each failed before its fix)', () => {
  const ofxFile = (acct: string, fitid: string, amount: string) =>
    [
      'OFXHEADER:100',
      'DATA:OFXSGML',
      'VERSION:102',
      '',
      '<OFX><BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STATUS><CODE>0<SEVERITY>INFO</STATUS>',
      `<STMTRS><CURDEF>CNY<BANKACCTFROM><BANKID>1<ACCTID>${acct}<ACCTTYPE>CHECKING</BANKACCTFROM>`,
      '<BANKTRANLIST><DTSTART>20261101<DTEND>20261130',
      `<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20261110<TRNAMT>-${amount}<FITID>${fitid}<NAME>SHOP</STMTTRN>`,
      '</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>',
      '',
    ].join('\r\n');
  const payment = (status: string) => `2026-11-10 12:00:00,服饰装扮,鞋店,sh***@example.com,鞋,支出,80.00,余额,${status},2026111022001400099\t,T99\t,,`;
  const refund = '2026-11-12 12:00:00,退款,鞋店,sh***@example.com,退款-鞋,不计收支,80.00,余额,退款成功,2026111022001400099_1\t,T99\t,,';

  it('books the refund of a payment booked from an earlier file that is closed in this one', async () => {
    const u = await registerUser(t);
    const alipay = await createAsset(t, u, { name: '支付宝', currency: 'CNY', balance: 1000 });
    await ok('import.commit', { token: (await ok('import.preview', { format: 'alipay', content: b64(alipayFile([payment('交易成功')])), assetId: alipay }, u)).token }, u);
    expect(await assetBalance(t, u, alipay)).toBe(920);
    const later = await ok('import.preview', { format: 'alipay', content: b64(alipayFile([payment('交易关闭'), refund])), assetId: alipay }, u);
    expect(later.summary).toMatchObject({ create: 1, duplicate: 1, skipped: 0 }); // the payment: imported before, its expense stays
    expect(later.create[0]).toMatchObject({ refund: true, amount: 80 });
    await ok('import.commit', { token: later.token }, u);
    expect(await assetBalance(t, u, alipay)).toBe(1000);
  });

  it('does not book the refund of a payment that is nowhere, unless included', async () => {
    const u = await registerUser(t);
    const alipay = await createAsset(t, u, { name: '支付宝', currency: 'CNY', balance: 1000 });
    const preview = await ok('import.preview', { format: 'alipay', content: b64(alipayFile([refund])), assetId: alipay }, u);
    expect(preview.skipped.map((l: any) => l.skipReason)).toEqual(['refundOfUnknown']);
    await ok('import.commit', { token: preview.token, overrides: [{ line: preview.skipped[0].line, include: true }] }, u);
    expect(await assetBalance(t, u, alipay)).toBe(1080);
  });

  it('keeps bank transaction ids apart per account', async () => {
    const u = await registerUser(t);
    const a = await createAsset(t, u, { name: 'A', currency: 'CNY', balance: 100 });
    const b = await createAsset(t, u, { name: 'B', currency: 'CNY', balance: 100 });
    await ok('import.commit', { token: (await ok('import.preview', { format: 'ofx', content: b64(ofxFile('111', '1001', '5.00')), assetId: a }, u)).token }, u);
    const other = await ok('import.preview', { format: 'ofx', content: b64(ofxFile('222', '1001', '7.00')), assetId: b }, u);
    expect(other.summary).toMatchObject({ create: 1, duplicate: 0 });
  });

  it('lists a line dated before 1970 in the zone as invalid and writes the rest', async () => {
    const u = await registerUser(t);
    const bank = await createAsset(t, u, { name: 'Bank', currency: 'CNY', balance: 100 });
    const csv = 'Date,Text,Amount\n1970-01-01,Old,-1.00\n2026-11-01,New,-2.00\n';
    const preview = await ok('import.preview', { format: 'csv', content: b64(csv), assetId: bank, timeZone: 'Asia/Shanghai', mapping: { date: 0, description: 1, amount: 2 } }, u);
    expect(preview.summary).toMatchObject({ create: 1, invalid: 1 });
    expect((await ok('import.commit', { token: preview.token }, u)).created).toBe(1);
  });

  it('refuses a commit whose asset was deleted since the preview, writing nothing; and a zero line cannot be included', async () => {
    const u = await registerUser(t);
    const bank = await createAsset(t, u, { name: 'Bank', currency: 'USD' });
    const keep = await createAsset(t, u, { name: 'Keep', currency: 'USD' });
    const csv = 'Date,Text,Amount\n2026-11-01,A,-1.00\n2026-11-02,Zero,0.00\n';
    const mapping = { date: 0, description: 1, amount: 2 };
    const preview = await ok('import.preview', { format: 'csv', content: b64(csv), assetId: bank, mapping }, u);
    const zeroLine = preview.skipped.find((l: any) => l.skipReason === 'zero')?.line ?? preview.invalid[0]?.line;
    const zero = await t.api('import.commit', { token: preview.token, overrides: [{ line: zeroLine, include: true }] }, u.token);
    expectRefusal(zero, importErrors.rows.overrideNotAllowed);
    await ok('asset.delete', { id: bank }, u);
    const refused = await t.api('import.commit', { token: preview.token }, u.token);
    expect([refused.code, refused.message]).toEqual([409, expect.stringMatching(/Line 2: its asset was deleted/)]);
    expect(await recordCount(u)).toBe(0);
    expect(keep).toBeTruthy();
  });

  it('leaves out a line that became a likely duplicate between its preview and its commit', async () => {
    const u = await registerUser(t);
    const alipay = await createAsset(t, u, { name: '支付宝', currency: 'CNY' });
    const card = await createAsset(t, u, { name: '招行信用卡 1234', type: 'credit_card', currency: 'CNY' });
    const bankFile = ofxFile('6225881234', 'F9', '32.00').replace('20261110', '20261121');
    const first = await ok('import.preview', { format: 'alipay', content: b64(alipayFile([ALIPAY_ROWS[0]])), assetId: alipay, timeZone: 'Asia/Shanghai' }, u);
    const second = await ok('import.preview', { format: 'ofx', content: b64(bankFile), assetId: card, timeZone: 'Asia/Shanghai' }, u);
    expect(second.summary.create).toBe(1);
    await ok('import.commit', { token: first.token }, u);
    expect(await ok('import.commit', { token: second.token }, u)).toMatchObject({ created: 0, likelyNow: 1 });
    expect(await recordCount(u)).toBe(1);
  });

  it('keeps an upload when its preview fails, for another try', async () => {
    const u = await registerUser(t);
    const bank = await createAsset(t, u, { name: 'Bank', currency: 'USD' });
    const { uploadId } = await ok('import.upload', { content: b64('Date,Amount\n2026-11-01,-1.00\n') }, u);
    expectRefusal(await t.api('import.preview', { format: 'csv', uploadId, assetId: bank }, u.token), importErrors.rows.mappingNeeded); // no mapping yet
    expect((await ok('import.preview', { format: 'csv', uploadId, assetId: bank, mapping: { date: 0, amount: 1 } }, u)).summary.create).toBe(1);
    expect((await t.api('import.preview', { format: 'csv', uploadId, assetId: bank, mapping: { date: 0, amount: 1 } }, u.token)).message).toMatch(/upload/);
  });
});
