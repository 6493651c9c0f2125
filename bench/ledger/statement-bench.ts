/**
 * Statement imports (issue 22), called by ledger-bench.ts: an Alipay bill export (the app layout,
 * GBK like the real download) of BENCH_STATEMENT_ROWS rows (default 100,000; 0 skips it) for a
 * fresh user, sent like the import wizard sends it — import.upload in parts of 1,000,000 base64
 * characters, import.preview, import.commit — then the same file again (all duplicates). Goals:
 * a 10,000-row preview ≤ 2 s, a 100,000-row import (upload + preview + commit) ≤ 10 s.
 */
import iconv from 'iconv-lite';
import { cycled } from '../lib';

type Call = (token: string, action: string, params: unknown) => Promise<any>;

const ROWS = Number(process.env.BENCH_STATEMENT_ROWS ?? 100_000);
const PART = 750_000; // bytes per part: 1,000,000 base64 characters

const CATEGORIES = ['餐饮美食', '日用百货', '交通出行', '充值缴费', '服饰装扮', '休闲娱乐'];
const PAYEES = ['星巴克', '美团', '滴滴出行', '中国移动', '优衣库', '盒马', '肯德基', '京东'];

/** An Alipay bill of `rows` rows over 5 years; 3 % closed, 2 % refunds, 4 % 不计收支. */
function alipayBill(rows: number): Buffer {
  const lines = [
    '------------------------------------------------------------------------------------',
    '导出信息：',
    '姓名：测试',
    '支付宝账户：bench***@example.com',
    '起始时间：[2021-01-01 00:00:00]    终止时间：[2025-12-31 23:59:59]',
    `共${rows}笔记录`,
    '----------------------支付宝（中国）网络技术有限公司  电子客户回单----------------------',
    '交易时间,交易分类,交易对方,对方账号,商品说明,收/支,金额,收/付款方式,交易状态,交易订单号,商家订单号,备注,',
  ];
  const start = Date.UTC(2021, 0, 1);
  const step = Math.floor((5 * 365 * 86_400_000) / rows);
  let seed = 11;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < rows; i++) {
    const date = new Date(start + i * step + 8 * 3_600_000).toISOString().replace('T', ' ').slice(0, 19);
    const id = `2021${String(i).padStart(24, '0')}`;
    const amount = (1 + Math.floor(random() * 50_000) / 100).toFixed(2);
    const payee = cycled(PAYEES, i);
    const category = cycled(CATEGORIES, i);
    const kind = random();
    if (kind < 0.03) lines.push(`${date},${category},${payee},p***@example.com,商品${i},支出,${amount},余额,交易关闭,${id}\t,M${i}\t,,`);
    else if (kind < 0.05) lines.push(`${date},退款,${payee},p***@example.com,退款-商品${i},不计收支,${amount},余额,退款成功,${id}_1\t,M${i}\t,,`);
    else if (kind < 0.09) lines.push(`${date},投资理财,余额宝,/,余额宝-转入,不计收支,${amount},余额,交易成功,${id}\t,\t,,`);
    else lines.push(`${date},${category},${payee},p***@example.com,商品${i},支出,${amount},余额,交易成功,${id}\t,M${i}\t,,`);
  }
  return iconv.encode(lines.join('\r\n') + '\r\n', 'gbk');
}

async function importOnce(call: Call, token: string, file: Buffer, assetId: string, commit: boolean) {
  const t0 = performance.now();
  let uploadId: string | undefined;
  for (let at = 0; at < file.length; at += PART) {
    const answer = await call(token, 'import.upload', { content: file.subarray(at, at + PART).toString('base64'), ...(uploadId ? { uploadId } : {}) });
    uploadId = answer.uploadId as string;
  }
  const t1 = performance.now();
  const preview = await call(token, 'import.preview', { format: 'alipay', uploadId, assetId, timeZone: 'Asia/Shanghai' });
  const t2 = performance.now();
  const committed = commit ? await call(token, 'import.commit', { token: preview.token }) : { created: 0 };
  const t3 = performance.now();
  return { upload: (t1 - t0) / 1000, preview: (t2 - t1) / 1000, commit: (t3 - t2) / 1000, total: (t3 - t0) / 1000, summary: preview.summary, created: committed.created as number };
}

export async function statementImportBench(call: Call, register: (name: string) => Promise<string>): Promise<void> {
  if (ROWS <= 0) return;
  const token = await register('statements');
  const asset = (await call(token, 'asset.create', { name: '支付宝', type: 'ewallet', currency: 'CNY', balance: 100_000_000 })).id as string;
  const small = alipayBill(Math.min(10_000, ROWS));
  const big = alipayBill(ROWS);
  const smallPreview = await importOnce(call, token, small, asset, false);
  const first = await importOnce(call, token, big, asset, true);
  const again = await importOnce(call, token, big, asset, true);
  if (first.created !== first.summary.create || again.created !== 0 || again.summary.duplicate !== first.created) {
    throw new Error(`statement import: ${JSON.stringify({ first: first.summary, again: again.summary, created: again.created })}`);
  }
  const rows: Array<[string, typeof first, string, boolean | null]> = [
    [`preview of a ${Math.min(10_000, ROWS).toLocaleString('en')}-row bill (upload + preview)`, smallPreview, '≤ 2 s', smallPreview.upload + smallPreview.preview <= 2],
    [`first import of ${ROWS.toLocaleString('en')} rows (upload + preview + commit)`, first, ROWS === 100_000 ? '≤ 10 s' : '-', ROWS === 100_000 ? first.total <= 10 : null],
    ['the same file again (all duplicates)', again, '-', null],
  ];
  console.log(
    `\nStatement import: an Alipay bill (GBK, ${(big.length / 1e6).toFixed(1)} MB, ${ROWS.toLocaleString('en')} rows: ${first.summary.create} to create, ${first.summary.skipped} skipped by the status rules), in parts of ${PART.toLocaleString('en')} bytes`,
  );
  console.log(`${'operation'.padEnd(60)} upload s  preview s  commit s   total s  created   goal     met`);
  for (const [name, r, goal, met] of rows) {
    const s = (n: number) => n.toFixed(2).padStart(9);
    console.log(
      `${name.padEnd(60)}${s(r.upload)} ${s(r.preview)} ${s(r.commit)} ${s(r.total)} ${String(r.created).padStart(8)}   ${goal.padEnd(7)}  ${met === null ? '-' : met ? 'met' : 'MISSED'}`,
    );
  }
}
