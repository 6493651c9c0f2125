/**
 * /send benchmark (npm run bench:push): requests per second and p50/p99 latency of GET /send
 * next to a bare Express handler, in the same run on the same machine, 50 concurrent callers.
 * Goal (issue 20): /send with one desktop recipient ≥ 40 % of the bare handler, p99 < 50 ms.
 *
 *   BENCH_SECONDS=6 npm run bench:push      longer slices (default 3 s)
 *   BENCH_ROUNDS=5 npm run bench:push       more alternations of bare / desktop (default 3)
 *   BENCH_ONLY=desktop npm run bench:push   only the desktop /send, ROUNDS × SECONDS (for profiling:
 *                                            node --cpu-prof --import tsx bench/push/push-bench.ts)
 *
 * The goal rows (bare handler, desktop /send) alternate in ROUNDS slices so that both see the same
 * background load; each row shows the median over its slices, its ratio the median of the slices'
 * ratios. The WeChat rows (1 and 10 recipients, against a fake WeChat answering instantly) follow,
 * one slice each.
 *
 * Layout, all on 127.0.0.1: PennyPost and the bare Express app share this process's main thread;
 * the load generator (autocannon) runs in a worker thread, the same for every scenario; the fake
 * WeChat runs in a child process, as WeChat is another machine in reality. The history is
 * written durably (fsync) as in production.
 */
import { fork } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import express from 'express';
import { createLogger } from '../../server/lib/logger';
import { startServer } from '../../server/server';
import { tempDataDir } from '../../server/test-support/test-server';
import { usersDomain } from '../../server/users';
import { pushDomain } from '../../server/push';
import { required } from '../lib';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Math.max(1, Math.floor(Number(process.env.BENCH_ROUNDS ?? 3)));
const ONLY_DESKTOP = process.env.BENCH_ONLY === 'desktop';
const CONNECTIONS = 50;

interface Row {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  requests: number;
  /** Main-thread CPU time per request, µs (see mainThreadCpuUs). */
  cpuUs: number;
  /** Per slice: this row's req/s ÷ the bare handler's in the same round (goal rows only). */
  ratios?: number[];
}

/** The middle value, or the mean of the two middle ones; NaN for none. */
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const upper = sorted.at(mid) ?? NaN;
  return sorted.length % 2 ? upper : ((sorted.at(mid - 1) ?? NaN) + upper) / 2;
};

/** One row from several slices of the same scenario: medians, errors and requests summed. */
function combine(name: string, slices: Row[]): Row {
  return {
    name,
    rps: median(slices.map((r) => r.rps)),
    p50: median(slices.map((r) => r.p50)),
    p99: median(slices.map((r) => r.p99)),
    errors: slices.reduce((sum, r) => sum + r.errors, 0),
    requests: slices.reduce((sum, r) => sum + r.requests, 0),
    cpuUs: median(slices.map((r) => r.cpuUs)),
  };
}

/**
 * CPU time of this process's main thread in µs (Linux: /proc, user + system, 10 ms ticks), or null
 * elsewhere. Unlike wall-clock figures it does not grow when other processes take the cores.
 */
function mainThreadCpuUs(): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return null;
  }
}

async function load(name: string, url: string, seconds = SECONDS): Promise<Row> {
  const before = performance.eventLoopUtilization();
  const cpuBefore = mainThreadCpuUs();
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, pipelining: 1, workers: 1 });
  const cpuAfter = mainThreadCpuUs();
  const elu = performance.eventLoopUtilization(before);
  const bad = result.errors + result.timeouts + result.non2xx;
  const requests = Math.max(1, result.requests.total);
  // Main-thread CPU per request; where /proc is missing, busy wall time (which counts waiting for a core too).
  const cpuUs = cpuBefore !== null && cpuAfter !== null ? (cpuAfter - cpuBefore) / requests : (elu.active * 1000) / requests;
  return { name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: bad, requests, cpuUs };
}

async function main(): Promise<void> {
  const child = fork(path.join(path.dirname(fileURLToPath(import.meta.url)), 'fake-wechat-child.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const wx = await new Promise<{ url: string; appId: string; appSecret: string }>((resolve, reject) => {
    child.once('error', reject);
    child.stdout!.once('data', (chunk: Buffer) => {
      const [firstLine = ''] = chunk.toString('utf8').split('\n');
      resolve(JSON.parse(firstLine));
    });
  });
  const delivered = () =>
    new Promise<number>((resolve) => {
      child.once('message', (m: { delivered: number }) => resolve(m.delivered));
      child.send('count');
    });
  const bare = express();
  bare.disable('x-powered-by');
  bare.get('/send/:key', (_req, res) => {
    res.json({ code: 0, message: 'ok', data: { success: 1, failed: 0, results: [] } });
  });
  const bareServer = await new Promise<ReturnType<typeof bare.listen>>((resolve) => {
    const s = bare.listen(0, '127.0.0.1', () => resolve(s));
  });
  const bareUrl = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}`;

  const dataDir = tempDataDir('push-bench');
  const server = await startServer({
    dataDir,
    port: 0,
    host: '127.0.0.1',
    logger: createLogger('silent'),
    domains: [usersDomain(), pushDomain()],
    settings: { push: { sendPerAppKey: 10_000_000, sendPerAddress: 10_000_000 }, rateLimit: { authPerAddress: 1000 } },
  });
  const api = async (action: string, params: unknown, token?: string) => {
    const res = await fetch(`${server.url}/api`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ action, params }),
    });
    const body = (await res.json()) as { code: number; message: string; data: any };
    if (body.code !== 200) throw new Error(`${action}: ${body.message}`);
    return body.data;
  };
  const user = await api('user.register', { username: 'bench', email: 'bench@example.com', password: 'correct horse battery' });
  const channel = await api('push.createChannel', { name: 'bench', type: 'wechat', config: { appId: wx.appId, appSecret: wx.appSecret, apiBase: wx.url } }, user.token);
  const one = await api('push.createApp', { name: 'one', channelId: channel.id }, user.token);
  const ten = await api('push.createApp', { name: 'ten', channelId: channel.id }, user.token);
  await api('push.addRecipient', { appId: one.id, address: 'openid_bench_0' }, user.token);
  for (let i = 0; i < 10; i++) await api('push.addRecipient', { appId: ten.id, address: `openid_bench_${i}` }, user.token);
  // The goal's row: a desktop app, whose one recipient is this computer (no outbound call).
  const desktopChannel = await api('push.createChannel', { name: 'desk', type: 'desktop' }, user.token);
  const desk = await api('push.createApp', { name: 'desk', channelId: desktopChannel.id }, user.token);

  const query = '?title=' + encodeURIComponent('Bench alert') + '&desp=' + encodeURIComponent('CPU **91%** on host-7');
  const sendOne = `${server.url}/send/${one.appKey}${query}`;
  const sendTen = `${server.url}/send/${ten.appKey}${query}`;
  const sendDesk = `${server.url}/send/${desk.appKey}${query}`;
  const check = (await (await fetch(sendTen)).json()) as { code: number; data: { success: number } };
  if (check.code !== 0 || check.data.success !== 10) throw new Error(`the bench setup does not deliver: ${JSON.stringify(check)}`);
  const checkDesk = (await (await fetch(sendDesk)).json()) as { code: number; data: { success: number } };
  if (checkDesk.code !== 0 || checkDesk.data.success !== 1) throw new Error(`the desktop app does not deliver: ${JSON.stringify(checkDesk)}`);

  const bareSend = `${bareUrl}/send/x${query}`;
  process.stderr.write(`push bench: ${ROUNDS} × ${SECONDS} s slices, ${CONNECTIONS} connections…\n`);
  // Warm-up (JIT, keep-alive pools, LevelDB), then the measured runs.
  if (!ONLY_DESKTOP) await load('warm-up bare', bareSend, 2);
  await load('warm-up send', ONLY_DESKTOP ? sendDesk : sendOne, 2);
  const bareSlices: Row[] = [];
  const deskSlices: Row[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (!ONLY_DESKTOP) bareSlices.push(await load('bare', bareSend));
    deskSlices.push(await load('desktop', sendDesk));
  }
  const rows: Row[] = [];
  const bareRow = ONLY_DESKTOP ? null : combine('bare Express handler', bareSlices);
  if (bareRow) rows.push(bareRow);
  const deskRow = combine('/send, desktop recipient', deskSlices);
  // the slices of a round ran one after the other: each desktop slice against its own bare one
  if (bareRow) deskRow.ratios = deskSlices.map((r, i) => r.rps / required(bareSlices.at(i), `bare slice ${i}`).rps);
  rows.push(deskRow);
  if (!ONLY_DESKTOP) {
    rows.push(await load('/send, 1 WeChat recipient', sendOne));
    rows.push(await load('/send, 10 WeChat recipients', sendTen));
  }
  const sentBefore = await delivered();

  const history = await api('push.queryMessages', { pageSize: 1 }, user.token);
  await server.close();
  await new Promise<void>((resolve) => bareServer.close(() => resolve()));
  child.disconnect();
  rmSync(dataDir, { recursive: true, force: true });

  const base = bareRow?.rps ?? NaN;
  const ratioOf = (r: Row) => (r.ratios ? median(r.ratios) : r.rps / base);
  const pad = (s: string, n: number) => s.padEnd(n);
  const num = (v: number, digits = 0) => v.toFixed(digits).padStart(9);
  const lines = [
    `| ${pad('scenario', 28)} | ${'req/s'.padStart(9)} | ${'p50 ms'.padStart(9)} | ${'p99 ms'.padStart(9)} | ${'vs bare'.padStart(8)} | ${'µs CPU/req'.padStart(10)} | ${'non-2xx/err'.padStart(11)} |`,
    `|${'-'.repeat(30)}|${'-'.repeat(11)}|${'-'.repeat(11)}|${'-'.repeat(11)}|${'-'.repeat(10)}|${'-'.repeat(12)}|${'-'.repeat(13)}|`,
    ...rows.map(
      (r) =>
        `| ${pad(r.name, 28)} | ${num(r.rps)} | ${num(r.p50, 1)} | ${num(r.p99, 1)} | ${(ONLY_DESKTOP ? '-' : `${(ratioOf(r) * 100).toFixed(0)} %`).padStart(8)} | ${r.cpuUs.toFixed(0).padStart(10)} | ${String(r.errors).padStart(11)} |`,
    ),
  ];
  console.log(lines.join('\n'));
  const slices = (values: number[], unit = '') => values.map((v) => `${v.toFixed(0)}${unit}`).join(' / ');
  const perSlice = [
    `req/s ${slices(deskSlices.map((r) => r.rps))}`,
    `p99 ${slices(
      deskSlices.map((r) => r.p99),
      ' ms',
    )}`,
    `µs CPU/req ${slices(deskSlices.map((r) => r.cpuUs))}`,
    ...(deskRow.ratios
      ? [
          `vs bare ${slices(
            deskRow.ratios.map((v) => v * 100),
            ' %',
          )}`,
        ]
      : []),
  ];
  console.log(`\nDesktop slices: ${perSlice.join('; ')}.`);
  if (bareRow) {
    const ratio = ratioOf(deskRow);
    console.log(
      `/send, desktop recipient: ${(ratio * 100).toFixed(0)} % of bare Express (goal ≥ 40 %: ${ratio >= 0.4 ? 'met' : 'MISSED'}), ` +
        `p99 ${deskRow.p99} ms (goal < 50 ms: ${deskRow.p99 < 50 ? 'met' : 'MISSED'}). ` +
        `Main-thread CPU per request: bare ${bareRow.cpuUs.toFixed(0)} µs, desktop /send ${deskRow.cpuUs.toFixed(0)} µs ` +
        `(${((bareRow.cpuUs / deskRow.cpuUs) * 100).toFixed(0)} %: the share of bare throughput if the main thread were the only limit). ` +
        `History rows written: ${history.total}; WeChat messages delivered: ${sentBefore}.`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
