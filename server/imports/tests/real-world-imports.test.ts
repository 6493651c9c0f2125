import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock';
import { createAsset } from '../../test-support/ledger';
import { registerUser, startTestServer, type TestServer } from '../../test-support/test-server';
import { importErrors } from '../errors';
import { expectRefusal } from '../../test-support/refusal';
import { alipayExport } from './alipay-export';

/**
 * Issues 35 and 36 through /api: what real statements need (placeholders that are no ids, refunds
 * a WeChat bill links by order number, Quicken's opening balances and zero lines, an ambiguous date
 * order, CSVs without a header row, payment methods with an `&…` part), and imports that need no
 * hand-fixing (the format and the asset a file belongs to, the wrong asset said once, the sources'
 * categories, what a likely duplicate matches). Every file here is our own, written in the layouts
 * the parsers' tests describe (server/imports/formats/tests/).
 */

const clock = new ManualClock(Date.UTC(2026, 10, 27, 12));
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ clock });
});
afterAll(() => t.close());

type User = Awaited<ReturnType<typeof registerUser>>;

let users = 0;
/** A new account in `language` (its default categories are that language's). */
async function newUser(language: 'en' | 'zh-CN' = 'en'): Promise<User> {
  users++;
  const params = { username: `real${process.pid}x${users}`, email: `real${process.pid}x${users}@example.com`, password: 'correct horse battery' };
  const answer = await t.api('user.register', { ...params, language });
  if (answer.code !== 200) throw new Error(`register: ${answer.code} ${answer.message}`);
  return { ...params, token: answer.data.token as string, id: answer.data.id as string };
}

async function ok<T = any>(action: string, params: Record<string, unknown>, u: User): Promise<T> {
  const answer = await t.api(action, params, u.token);
  if (answer.code !== 200) throw new Error(`${action}: ${answer.code} ${answer.message}`);
  return answer.data as T;
}

const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64');
const fixture = (name: string) => readFileSync(new URL(`../formats/tests/fixtures/${name}`, import.meta.url));
const signed = (lines: Array<{ type: string; amount: number }>) => Math.round(lines.reduce((sum, l) => sum + (l.type === 'income' ? l.amount : -l.amount), 0) * 100) / 100;

/** An Alipay app export (导出信息 … 电子客户回单) of the given rows. */
function alipayFile(rows: string[]): string {
  return alipayExport(rows, ['导出信息：', '支付宝账户：li***@example.com']);
}

/** A camt.052 report of one account whose entries carry the reference German banks send when they have none. */
function camtNonref(entries: Array<{ date: string; amount: string; side: 'CRDT' | 'DBIT'; text: string }>): string {
  const entry = (e: (typeof entries)[number]) =>
    `<Ntry><Amt Ccy="EUR">${e.amount}</Amt><CdtDbtInd>${e.side}</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>${e.date}</Dt></BookgDt><ValDt><Dt>${e.date}</Dt></ValDt>` +
    `<AcctSvcrRef>NONREF</AcctSvcrRef><NtryDtls><TxDtls><Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs><RmtInf><Ustrd>${e.text}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`;
  return (
    '<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.052.001.02"><BkToCstmrAcctRpt><GrpHdr><MsgId>R1</MsgId></GrpHdr>' +
    `<Rpt><Id>R1</Id><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct>${entries.map(entry).join('')}</Rpt></BkToCstmrAcctRpt></Document>`
  );
}

describe('CAMT: a placeholder reference is no id (issue 35, 1)', () => {
  it("imports the next statement's NONREF entries instead of taking them for the last statement's", async () => {
    const u = await newUser();
    const giro = await createAsset(t, u, { name: 'Girokonto', type: 'debit_card', currency: 'EUR' });
    const first = camtNonref([
      { date: '2026-07-20', amount: '10.00', side: 'CRDT', text: 'Gutschrift' },
      { date: '2026-07-20', amount: '0.50', side: 'CRDT', text: 'Zinsen' },
    ]);
    const preview = await ok('import.preview', { format: 'camt', content: b64(first), assetId: giro, timeZone: 'Europe/Berlin' }, u);
    expect(preview.summary).toMatchObject({ create: 2, duplicate: 0 });
    await ok('import.commit', { token: preview.token }, u);
    const next = camtNonref([
      { date: '2026-07-27', amount: '25.00', side: 'CRDT', text: 'Gutschrift' },
      { date: '2026-07-27', amount: '7.25', side: 'CRDT', text: 'Zinsen' },
    ]);
    const second = await ok('import.preview', { format: 'camt', content: b64(next), assetId: giro, timeZone: 'Europe/Berlin' }, u);
    expect(second.summary).toMatchObject({ create: 2, duplicate: 0 });
    // The same statement again is still recognised, by its content.
    const again = await ok('import.preview', { format: 'camt', content: b64(first), assetId: giro, timeZone: 'Europe/Berlin' }, u);
    expect(again.summary).toMatchObject({ create: 0, duplicate: 2 });
  });
});

describe('WeChat Pay: a bill whose header ends 备注,备注, with refunded red packets and transfers (issue 35, 2 and 3)', () => {
  it('reads every complete row, and counts neither a refunded red packet or transfer nor its refund', async () => {
    const u = await newUser('zh-CN');
    const wallet = await createAsset(t, u, { name: '微信零钱', type: 'ewallet', currency: 'CNY' });
    const preview = await ok('import.preview', { format: 'wechat', content: b64(fixture('wechat/wechat-double-note.csv')), assetId: wallet, timeZone: 'Asia/Shanghai' }, u);
    expect(preview.summary).toMatchObject({ lines: 8, create: 3, skipped: 4, invalid: 1 });
    const skipped = Object.fromEntries(preview.skipped.map((l: any) => [l.line, l.skipReason]));
    expect(skipped).toEqual({ 8: 'closed', 9: 'refundOfClosed', 10: 'closed', 11: 'refundOfClosed' });
    // 6.50 and 4.00 out, 50.00 in: not +186.00 of refunds that never came in addition.
    expect(signed(preview.create)).toBe(39.5);
  });
});

describe('QIF: opening balances, zero lines and the date order (issue 35, 5)', () => {
  it('skips the opening balance and the zero line as the status rules say, and will not include the opening balance', async () => {
    const u = await newUser();
    const checking = await createAsset(t, u, { name: 'Everyday', type: 'debit_card', currency: 'USD' });
    const preview = await ok('import.preview', { format: 'qif', content: b64(fixture('qif/comments-2000s.qif')), assetId: checking, timeZone: 'UTC' }, u);
    expect(preview.summary).toMatchObject({ lines: 4, create: 2, skipped: 2, invalid: 0 });
    expect(preview.skipped.map((l: any) => [l.line, l.skipReason])).toEqual([
      [5, 'openingBalance'],
      [16, 'zero'],
    ]);
    expect(preview.create.map((l: any) => new Date(l.date).toISOString().slice(0, 10))).toEqual(['2000-06-15', '2005-07-01']);
    const refused = await t.api('import.commit', { token: preview.token, overrides: [{ line: 5, include: true }] }, u.token);
    expectRefusal(refused, importErrors.rows.overrideNotAllowed);
    expect(refused.message).toContain('starting balance');
  });

  it('says when the date order is ambiguous, and reads the order the person chooses', async () => {
    const u = await newUser();
    const bank = await createAsset(t, u, { name: 'Bank', type: 'debit_card', currency: 'USD' });
    const params = { format: 'qif', content: b64(fixture('qif/year-first.qif')), assetId: bank, timeZone: 'UTC' };
    const preview = await ok('import.preview', params, u);
    expect(preview.summary.dateOrder).toEqual({ used: 'YMD', possible: ['DMY', 'YMD'] });
    expect(new Date(preview.create[0].date).toISOString().slice(0, 10)).toBe('2021-09-04');
    const chosen = await ok('import.preview', { ...params, dateOrder: 'DMY' }, u);
    expect(chosen.summary.dateOrder).toEqual({ used: 'DMY', possible: ['DMY', 'YMD'] });
    expect(new Date(chosen.create[0].date).toISOString().slice(0, 10)).toBe('2004-09-21');
    const plain = await ok('import.preview', { ...params, content: b64(fixture('qif/bank-us.qif')) }, u);
    expect(plain.summary.dateOrder).toBeUndefined();
  });
});

describe('a bank CSV without a header row (issue 35, 4)', () => {
  it('loses nothing: describeCsv notices it, and the first row is imported', async () => {
    const u = await newUser();
    const bank = await createAsset(t, u, { name: 'Chequing', type: 'debit_card', currency: 'CAD' });
    const content = b64(fixture('csv/no-header.csv'));
    const described = await ok('import.describeCsv', { content }, u);
    expect(described).toMatchObject({ header: false, skipRows: 0, guess: { date: 0, description: 1, outflow: 2, inflow: 3, header: false } });
    const preview = await ok('import.preview', { format: 'csv', content, assetId: bank, timeZone: 'UTC', mapping: { ...described.guess, dateFormat: 'MM/DD/YYYY' } }, u);
    expect(preview.summary).toMatchObject({ lines: 4, create: 4, invalid: 0 });
    expect(signed(preview.create)).toBe(1652.95);
  });

  it('skips the lines above the header row by itself', async () => {
    const u = await newUser();
    const bank = await createAsset(t, u, { name: 'Current', type: 'debit_card', currency: 'GBP' });
    const content = b64(fixture('csv/bank-preamble.csv'));
    const described = await ok('import.describeCsv', { content }, u);
    expect(described).toMatchObject({ skipRows: 4, header: true, headers: ['Date', 'Details', 'Money out', 'Money in', 'Balance'] });
    const preview = await ok('import.preview', { format: 'csv', content, assetId: bank, timeZone: 'UTC', mapping: described.guess }, u);
    expect(preview.summary).toMatchObject({ lines: 3, create: 3, invalid: 0 });
  });
});

describe('which format a file is, and the asset it belongs to (issue 35, 6; issue 36, 4)', () => {
  it('import.describe: by the header and structure, never by the merchants in the rows', async () => {
    const u = await newUser('zh-CN');
    const card = await createAsset(t, u, { name: '招行储蓄卡', type: 'debit_card', currency: 'CNY' });
    const alipay = await createAsset(t, u, { name: '支付宝', type: 'ewallet', currency: 'CNY' });
    const wechat = await createAsset(t, u, { name: '微信零钱', type: 'ewallet', currency: 'CNY' });
    const visa = await createAsset(t, u, { name: 'Visa 9012', type: 'credit_card', currency: 'USD' });
    const describe = (bytes: Buffer | string) => ok('import.describe', { content: b64(bytes) }, u);
    expect(await describe(fixture('alipay/app-export.csv'))).toMatchObject({ format: 'alipay', asset: { id: alipay, name: '支付宝' } });
    expect(await describe(fixture('wechat/wechat-bill.csv'))).toMatchObject({ format: 'wechat', asset: { id: wechat } });
    expect(await describe(fixture('csv/cn-bank-merchants.csv'))).toEqual({ format: 'csv', account: '' });
    expect(await describe(fixture('qif/bank-us.qif'))).toEqual({ format: 'qif', account: '' });
    const ofx = `OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\n\n<OFX><CREDITCARDMSGSRSV1><CCSTMTTRNRS><CCSTMTRS><CURDEF>USD<CCACCTFROM><ACCTID>4000123456789012</CCACCTFROM></CCSTMTRS></CCSTMTTRNRS></CREDITCARDMSGSRSV1></OFX>`;
    expect(await describe(ofx)).toEqual({ format: 'ofx', account: '4000123456789012', asset: { id: visa, name: 'Visa 9012', currency: 'USD' } });
    expect(await describe('just some words')).toEqual({ format: null, account: '' });
    expect(card).toBeTruthy();
  });

  it('says "wrong asset" once when the chosen asset keeps another currency, and names the one to use', async () => {
    const u = await newUser('zh-CN');
    const usd = await createAsset(t, u, { name: 'Visa', type: 'credit_card', currency: 'USD' });
    const alipay = await createAsset(t, u, { name: '支付宝', type: 'ewallet', currency: 'CNY' });
    const file = alipayFile([
      '2026-11-20 12:30:00,餐饮美食,咖啡店,c***@example.com,拿铁,支出,18.00,账户余额,交易成功,2026112022001400101\t,M1\t,,',
      '2026-11-21 12:30:00,日用百货,超市,s***@example.com,纸巾,支出,9.90,账户余额,交易关闭,2026112122001400102\t,M2\t,,',
      '2026-11-22 12:30:00,日用百货,超市,s***@example.com,牙膏,支出,12.00,账户余额,等待确认收货,2026112222001400103\t,M3\t,,',
    ]);
    const answer = await t.api('import.preview', { format: 'alipay', content: b64(file), assetId: usd, timeZone: 'Asia/Shanghai' }, u.token);
    expectRefusal(answer, importErrors.rows.wrongAsset);
    expect(answer.data).toMatchObject({ reason: 'imports.wrongAsset', currency: 'CNY', assetCurrency: 'USD', suggestedAsset: { id: alipay, name: '支付宝' } });
    expect(answer.message).toBe('This Alipay bill is in CNY, but Visa keeps USD: import it into an asset in CNY (such as 支付宝). Nothing was read into Visa.');
  });

  it('keeps skipped rows skipped when some lines are in another currency, and will not include them', async () => {
    const u = await newUser();
    const hkd = await createAsset(t, u, { name: 'HSBC HKD', type: 'debit_card', currency: 'HKD' });
    const csv = 'Date,Description,Amount,Currency\n2026-03-01,LUNCH,-80.00,HKD\n2026-03-02,SALARY,12500.00,CNY\n2026-03-03,VOID,0.00,CNY\n';
    const preview = await ok(
      'import.preview',
      { format: 'csv', content: b64(csv), assetId: hkd, timeZone: 'UTC', mapping: { date: 0, description: 1, amount: 2, currency: 3 } },
      u,
    );
    expect(preview.summary).toMatchObject({ create: 1, skipped: 1, invalid: 1 });
    expect(preview.skipped[0]).toMatchObject({ line: 4, skipReason: 'zero', currency: 'CNY' });
    expect(preview.invalid[0]).toMatchObject({ line: 3, kind: 'currencyMismatch' });
    const refused = await t.api('import.commit', { token: preview.token, overrides: [{ line: 4, include: true }] }, u.token);
    expectRefusal(refused, importErrors.rows.overrideNotAllowed);
  });

  it('suggests the asset the source belongs to when another in its currency was chosen', async () => {
    const u = await newUser('zh-CN');
    const card = await createAsset(t, u, { name: '招行储蓄卡', type: 'debit_card', currency: 'CNY' });
    const alipay = await createAsset(t, u, { name: '支付宝', type: 'ewallet', currency: 'CNY' });
    const file = alipayFile(['2026-11-20 12:30:00,餐饮美食,咖啡店,c***@example.com,拿铁,支出,18.00,账户余额,交易成功,2026112022001400201\t,M1\t,,']);
    const preview = await ok('import.preview', { format: 'alipay', content: b64(file), assetId: card, timeZone: 'Asia/Shanghai' }, u);
    expect(preview.summary.suggestedAsset).toEqual({ id: alipay, name: '支付宝' });
    const right = await ok('import.preview', { format: 'alipay', content: b64(file), assetId: alipay, timeZone: 'Asia/Shanghai' }, u);
    expect(right.summary.suggestedAsset).toBeUndefined();
  });

  it('routes `花呗&优惠` to the asset 花呗 (issue 35, 8)', async () => {
    const u = await newUser('zh-CN');
    const alipay = await createAsset(t, u, { name: '支付宝', type: 'ewallet', currency: 'CNY' });
    const huabei = await createAsset(t, u, { name: '花呗', type: 'credit_card', currency: 'CNY' });
    const file = alipayFile([
      '2026-11-20 12:30:00,日用百货,超市,s***@example.com,水果,支出,30.00,花呗&优惠,交易成功,2026112022001400301\t,M1\t,,',
      '2026-11-21 12:30:00,日用百货,超市,s***@example.com,牛奶,支出,12.00,花呗,交易成功,2026112122001400302\t,M2\t,,',
    ]);
    const preview = await ok('import.preview', { format: 'alipay', content: b64(file), assetId: alipay, timeZone: 'Asia/Shanghai' }, u);
    expect(preview.create.map((l: any) => l.asset)).toEqual([huabei, huabei]);
  });
});

describe("the sources' categories (issue 36, 5)", () => {
  const rows = [
    '2026-11-20 12:30:00,餐饮美食,咖啡店,c***@example.com,拿铁,支出,18.00,账户余额,交易成功,2026112022001400401\t,M1\t,,',
    '2026-11-20 18:00:00,交通出行,滴滴出行,d***@example.com,快车,支出,25.00,账户余额,交易成功,2026112022001400402\t,M2\t,,',
    '2026-11-21 09:00:00,日用百货,超市,s***@example.com,纸巾,支出,9.90,账户余额,交易成功,2026112122001400403\t,M3\t,,',
    '2026-11-21 10:00:00,日用百货,便利店,b***@example.com,电池,支出,15.00,账户余额,交易成功,2026112122001400404\t,M4\t,,',
    '2026-11-22 10:00:00,某种新分类,小店,x***@example.com,东西,支出,5.00,账户余额,交易成功,2026112222001400405\t,M5\t,,',
  ];
  const categoriesOf = (preview: any) => preview.create.map((l: any) => l.category);

  it('files 交易分类 into the default categories, in a Chinese account and an English one', async () => {
    const zh = await newUser('zh-CN');
    const zhAsset = await createAsset(t, zh, { name: '支付宝', type: 'ewallet', currency: 'CNY' });
    const zhPreview = await ok('import.preview', { format: 'alipay', content: b64(alipayFile(rows)), assetId: zhAsset, timeZone: 'Asia/Shanghai' }, zh);
    expect(categoriesOf(zhPreview)).toEqual(['餐饮', '交通', '购物', '购物', '其他']);
    const en = await newUser('en');
    const enAsset = await createAsset(t, en, { name: 'Alipay', type: 'ewallet', currency: 'CNY' });
    const enPreview = await ok('import.preview', { format: 'alipay', content: b64(alipayFile(rows)), assetId: enAsset, timeZone: 'Asia/Shanghai' }, en);
    expect(categoriesOf(enPreview)).toEqual(['Food', 'Transport', 'Shopping', 'Shopping', 'Other']);
  });

  it("follows the person's renamed categories", async () => {
    const u = await newUser('zh-CN');
    const asset = await createAsset(t, u, { name: '支付宝', type: 'ewallet', currency: 'CNY' });
    const food = (await ok<{ list: Array<{ id: string; name: string }> }>('category.list', { type: 'expense' }, u)).list.find((c) => c.name === '餐饮');
    await ok('category.update', { id: food?.id, name: '吃饭' }, u);
    const preview = await ok('import.preview', { format: 'alipay', content: b64(alipayFile(rows.slice(0, 1))), assetId: asset, timeZone: 'Asia/Shanghai' }, u);
    expect(categoriesOf(preview)).toEqual(['吃饭']);
  });

  it("learns from the person's corrections: the next import files that 交易分类 where they put it, and the payee counts towards a rule", async () => {
    const u = await newUser('zh-CN');
    const asset = await createAsset(t, u, { name: '支付宝', type: 'ewallet', currency: 'CNY' });
    await ok('category.create', { type: 'expense', name: '日用品' }, u);
    const first = await ok('import.preview', { format: 'alipay', content: b64(alipayFile(rows)), assetId: asset, timeZone: 'Asia/Shanghai' }, u);
    const lineOf = (payee: string) => first.create.find((l: any) => l.payee === payee).line;
    await ok(
      'import.commit',
      {
        token: first.token,
        overrides: [
          { line: lineOf('超市'), category: '日用品' },
          { line: lineOf('便利店'), category: '日用品' },
          { line: lineOf('小店'), category: '日用品' },
        ],
      },
      u,
    );
    const next = alipayFile([
      '2026-11-25 09:00:00,日用百货,五金店,w***@example.com,灯泡,支出,20.00,账户余额,交易成功,2026112522001400501\t,M6\t,,',
      '2026-11-25 12:00:00,餐饮美食,面馆,n***@example.com,面,支出,22.00,账户余额,交易成功,2026112522001400502\t,M7\t,,',
    ]);
    const second = await ok('import.preview', { format: 'alipay', content: b64(next), assetId: asset, timeZone: 'Asia/Shanghai' }, u);
    expect(categoriesOf(second)).toEqual(['日用品', '餐饮']);
    await t.server.app.services.ruleSuggestions.settled();
    const rules = await ok('rule.query', {}, u);
    expect(rules.suggestions).toEqual([]);
    // A second move of the same payee makes a suggestion, as re-categorised records do.
    const third = await ok(
      'import.preview',
      {
        format: 'alipay',
        content: b64(alipayFile(['2026-11-26 09:00:00,某种新分类,小店,x***@example.com,别的,支出,6.00,账户余额,交易成功,2026112622001400601\t,M8\t,,'])),
        assetId: asset,
        timeZone: 'Asia/Shanghai',
      },
      u,
    );
    await ok('import.commit', { token: third.token, overrides: [{ line: third.create[0].line, category: '日用品' }] }, u);
    await t.server.app.services.ruleSuggestions.settled();
    expect((await ok('rule.query', {}, u)).suggestions).toMatchObject([{ match: { value: '小店' }, set: { category: '日用品' }, count: 2 }]);
  });
});

describe('a likely duplicate names the record it matches (issue 36, 6)', () => {
  it('gives the matching record: its date, text, category and amount', async () => {
    const u = await newUser('zh-CN');
    const alipay = await createAsset(t, u, { name: '支付宝', type: 'ewallet', currency: 'CNY', balance: 100 });
    const typed = await ok('accounting.create', { type: 'expense', amount: 18, asset: alipay, category: '餐饮', description: '早上的拿铁', date: Date.UTC(2026, 10, 20, 1) }, u);
    const file = alipayFile(['2026-11-20 12:30:00,餐饮美食,咖啡店,c***@example.com,拿铁,支出,18.00,账户余额,交易成功,2026112022001400701\t,M1\t,,']);
    const preview = await ok('import.preview', { format: 'alipay', content: b64(file), assetId: alipay, timeZone: 'Asia/Shanghai' }, u);
    expect(preview.summary.likelyDuplicate).toBe(1);
    expect(preview.duplicates[0]).toMatchObject({
      matchId: typed.id,
      match: { id: typed.id, date: Date.UTC(2026, 10, 20, 1), description: '早上的拿铁', category: '餐饮', amount: 18 },
    });
  });
});
