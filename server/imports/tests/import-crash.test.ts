import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { startChildServer, type ChildServer } from '../../test-support/child-server';
import { tempDataDir } from '../../test-support/test-server';
import { importErrors } from '../errors';
import { expectRefusal } from '../../test-support/refusal';

/**
 * Issue 34, finding 14: a PennyPost killed (SIGKILL) in the middle of `import.commit` (45,000 of
 * 60,000 lines written, in the review) used to come back with part of the import written and no word about it. Now the commit's
 * journal survives the crash: after the restart `import.interrupted` (and every preview) lists the
 * import with how much of it is in the ledger, and `import.finish` writes the rest, with no line
 * twice. A real server process, killed for real, restarted on the same data.
 */

const LINES = 30_000;
const PART = 750_000;
const SETTINGS = { rateLimit: { apiPerToken: 1_000_000 } };

const dataDir = tempDataDir('import-crash');
let server: ChildServer | undefined;
afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

function killed(child: ChildServer): Promise<void> {
  return new Promise((resolve) => {
    if (child.child.exitCode !== null || child.child.signalCode !== null) {
      resolve();
      return;
    }
    child.child.once('exit', () => resolve());
    child.child.kill('SIGKILL');
  });
}

/** An Alipay bill (PC export layout) of `count` payments, each with its own order number. */
function alipayBill(count: number): Buffer {
  const rows = ['交易号,商家订单号,交易创建时间,付款时间,最近修改时间,交易来源地,类型,交易对方,商品名称,金额（元）,收/支,交易状态,服务费（元）,成功退款（元）,备注,资金状态'];
  for (let i = 0; i < count; i++) {
    const day = String(1 + (i % 28)).padStart(2, '0');
    rows.push(`2026010${i},M${i},2026-01-${day} 10:00:00,,,其他,即时到账交易,商店${i % 97},商品${i},${(1 + (i % 500) / 100).toFixed(2)},支出,交易成功,0,0,,已支出`);
  }
  return Buffer.from(`${rows.join('\n')}\n`);
}

it('a commit killed half-way is listed after the restart and can be finished, nothing doubled', { timeout: 240_000 }, async () => {
  server = await startChildServer(dataDir, SETTINGS);
  const api = async (action: string, params: Record<string, unknown> = {}) => {
    const answer = await (server as ChildServer).api(action, params, token);
    expect(answer.code, `${action}: ${answer.message}`).toBe(200);
    return answer.data;
  };
  let token = '';
  token = (await api('user.register', { username: 'crashimport', email: 'crashimport@example.com', password: 'correct horse battery' })).token as string;
  const assetId = (await api('asset.create', { name: 'Alipay', type: 'ewallet', currency: 'CNY', balance: 0 })).id as string;
  const total = async () => (await api('accounting.query', { page: 1, pageSize: 1 })).total as number;

  const bill = alipayBill(LINES);
  let uploadId: string | undefined;
  for (let at = 0; at < bill.length; at += PART) {
    uploadId = (await api('import.upload', { content: bill.subarray(at, at + PART).toString('base64'), ...(uploadId ? { uploadId } : {}) })).uploadId as string;
  }
  const preview = await api('import.preview', { format: 'alipay', uploadId, assetId, timeZone: 'Asia/Shanghai' });
  expect(preview.summary.create).toBe(LINES);
  expect(preview.interrupted).toEqual([]);

  // Commit, and kill the server once the first batch is in the ledger.
  const commit = server.api('import.commit', { token: preview.token }, token).catch(() => null);
  let seen = 0;
  for (const started = Date.now(); seen === 0 && Date.now() - started < 120_000;) {
    seen = await total();
    if (seen === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await killed(server);
  await commit;
  expect(seen).toBeGreaterThan(0);

  server = await startChildServer(dataDir, SETTINGS);
  const written = await total();
  expect(written, 'the kill came in the middle of the commit').toBeGreaterThan(0);
  expect(written).toBeLessThan(LINES);
  console.log(`killed with ${written} of ${LINES} records written`);
  const listed = (await api('import.interrupted')).imports as Array<Record<string, unknown>>;
  expect(listed).toEqual([{ id: expect.any(String), format: 'alipay', account: '', startedAt: expect.any(Number), records: LINES, written }]);
  // The import screen's preview says so too.
  const other = await api('import.preview', { format: 'qif', content: Buffer.from('!Type:Bank\nD01/02/2026\nT-1.00\nPShop\n^\n').toString('base64'), assetId, timeZone: 'UTC' });
  expect(other.interrupted).toEqual(listed);

  const finished = await api('import.finish', { id: listed.at(0)?.id });
  expect(finished).toMatchObject({ created: LINES - written, alreadyImported: written });
  expect(await total()).toBe(LINES);
  expect((await api('import.interrupted')).imports).toEqual([]);
  const again = await server.api('import.finish', { id: listed.at(0)?.id }, token);
  expectRefusal(again, importErrors.rows.interruptedNotFound);

  // The same file again: every line is already in the ledger, once.
  let againId: string | undefined;
  for (let at = 0; at < bill.length; at += PART) {
    againId = (await api('import.upload', { content: bill.subarray(at, at + PART).toString('base64'), ...(againId ? { uploadId: againId } : {}) })).uploadId as string;
  }
  const second = await api('import.preview', { format: 'alipay', uploadId: againId, assetId, timeZone: 'Asia/Shanghai' });
  expect(second.summary).toMatchObject({ create: 0, duplicate: LINES });
});
