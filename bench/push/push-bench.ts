/**
 * /send benchmark (npm run bench:push): requests per second and p50/p99 latency of GET /send
 * with 1 and with 10 WeChat recipients against the local fake WeChat (answering instantly),
 * next to a bare Express handler, in the same run on the same machine, 50 concurrent callers.
 * Goal (issue 5): with 1 recipient ≥ 40 % of the bare Express throughput, p99 < 50 ms.
 *
 *   BENCH_SECONDS=10 npm run bench:push      longer runs (default 6 s per scenario)
 *
 * Layout, all on 127.0.0.1: PennyPost and the bare Express app share this process's main thread;
 * the load generator (autocannon) runs in a worker thread, the same for every scenario; the fake
 * WeChat runs in a child process, as WeChat is another machine in reality. The history is
 * written durably (fsync) as in production.
 */
import { fork } from 'node:child_process';
import { rmSync } from 'node:fs';
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

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const CONNECTIONS = 50;

interface Row {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  requests: number;
  /** Main-thread busy time per request (event-loop utilisation × wall time ÷ requests), µs. */
  cpuUs: number;
}

async function load(name: string, url: string, seconds = SECONDS): Promise<Row> {
  const before = performance.eventLoopUtilization();
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, pipelining: 1, workers: 1 });
  const elu = performance.eventLoopUtilization(before);
  const bad = result.errors + result.timeouts + result.non2xx;
  const requests = result.requests.total;
  return { name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: bad, requests, cpuUs: (elu.active * 1000) / Math.max(1, requests) };
}

async function main(): Promise<void> {
  const child = fork(path.join(path.dirname(fileURLToPath(import.meta.url)), 'fake-wechat-child.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const wx = await new Promise<{ url: string; appId: string; appSecret: string }>((resolve, reject) => {
    child.once('error', reject);
    child.stdout!.once('data', (chunk: Buffer) => resolve(JSON.parse(chunk.toString('utf8').split('\n')[0])));
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
  // For the cost breakdown: the same request path without any outbound call.
  const desktopChannel = await api('push.createChannel', { name: 'desk', type: 'desktop' }, user.token);
  const desk = await api('push.createApp', { name: 'desk', channelId: desktopChannel.id }, user.token);

  const query = '?title=' + encodeURIComponent('Bench alert') + '&desp=' + encodeURIComponent('CPU **91%** on host-7');
  const sendOne = `${server.url}/send/${one.appKey}${query}`;
  const sendTen = `${server.url}/send/${ten.appKey}${query}`;
  const check = (await (await fetch(sendTen)).json()) as { code: number; data: { success: number } };
  if (check.code !== 0 || check.data.success !== 10) throw new Error(`the bench setup does not deliver: ${JSON.stringify(check)}`);

  process.stderr.write(`push bench: ${SECONDS} s per scenario, ${CONNECTIONS} connections…\n`);
  // Warm-up (JIT, keep-alive pools, LevelDB), then the measured runs.
  await load('warm-up bare', `${bareUrl}/send/x${query}`, 2);
  await load('warm-up send', sendOne, 2);
  const rows: Row[] = [];
  rows.push(await load('bare Express handler', `${bareUrl}/send/x${query}`));
  rows.push(await load('/send, 1 recipient', sendOne));
  rows.push(await load('/send, 10 recipients', sendTen));
  rows.push(await load('/send, desktop (no call)', `${server.url}/send/${desk.appKey}${query}`));
  const sentBefore = await delivered();

  const history = await api('push.queryMessages', { pageSize: 1 }, user.token);
  await server.close();
  await new Promise<void>((resolve) => bareServer.close(() => resolve()));
  child.disconnect();
  rmSync(dataDir, { recursive: true, force: true });

  const base = rows[0].rps;
  const pad = (s: string, n: number) => s.padEnd(n);
  const num = (v: number, digits = 0) => v.toFixed(digits).padStart(9);
  const lines = [
    `| ${pad('scenario', 25)} | ${'req/s'.padStart(9)} | ${'p50 ms'.padStart(9)} | ${'p99 ms'.padStart(9)} | ${'vs bare'.padStart(8)} | ${'µs CPU/req'.padStart(10)} | ${'non-2xx/err'.padStart(11)} |`,
    `|${'-'.repeat(27)}|${'-'.repeat(11)}|${'-'.repeat(11)}|${'-'.repeat(11)}|${'-'.repeat(10)}|${'-'.repeat(12)}|${'-'.repeat(13)}|`,
    ...rows.map(
      (r) =>
        `| ${pad(r.name, 25)} | ${num(r.rps)} | ${num(r.p50, 1)} | ${num(r.p99, 1)} | ${`${((r.rps / base) * 100).toFixed(0)} %`.padStart(8)} | ${r.cpuUs.toFixed(0).padStart(10)} | ${String(r.errors).padStart(11)} |`,
    ),
  ];
  console.log(lines.join('\n'));
  const oneRow = rows[1];
  const goalThroughput = oneRow.rps >= 0.4 * base;
  const goalP99 = oneRow.p99 < 50;
  console.log(
    `\n1 recipient: ${((oneRow.rps / base) * 100).toFixed(0)} % of bare Express (goal ≥ 40 %: ${goalThroughput ? 'met' : 'MISSED'}), ` +
      `p99 ${oneRow.p99} ms (goal < 50 ms: ${goalP99 ? 'met' : 'MISSED'}). ` +
      `History rows written: ${history.total}; WeChat messages delivered: ${sentBefore}.`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
