/**
 * npm run bench:phone — the phone app (phone/, built to dist/phone/, served at /phone/) in this
 * machine's headless Chromium (PENNYPOST_CHROMIUM, default /usr/bin/chromium) with Playwright's
 * Pixel 7 profile, against the CouchDB peer of the test suite (PouchDB Server from npm, its own
 * process) and a PennyPost in this process. Prints one table:
 *
 * 1. first sync: from opening the pairing link until the empty phone holds all N records (10,000),
 *    written straight into the ledger's CouchDB records database as the desktop stores them;
 * 2. offline open: the app (service worker in control, figures of the previous open saved) opened
 *    with no network at `?tab=overview` until the Cash balance is on screen, N times;
 * 3. an expense saved on the phone (click on Save) until the desktop's `accounting.query` lists
 *    it, both online, 10 saves;
 * 4. what the first screen loads: gzip (level 9) of index.html and the JS and CSS it names.
 *
 * A script that prints numbers, not a test. Needs `npm run build` (or `npm run build:phone`) first.
 * BENCH_PHONE_RECORDS, BENCH_PHONE_OPENS, BENCH_PHONE_SAVES change the sizes; BENCH_PHONE_TRACE=1
 * also prints the phone's requests to CouchDB in each phase.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, devices, type Browser, type Page } from '@playwright/test';
import { startServer, type RunningServer } from '../../server/server';
import { createLogger } from '../../server/lib/logger';
import { newId } from '../../server/lib/ids';
import { newRecord } from '../../server/ledger/record-factory';
import type { RecordDoc } from '../../server/ledger/schema';
import type { Pairing } from '../../server/sync/pairing-link';
import { COUCH_ADMIN, CouchPeer } from '../../server/test-support/couch-peer/couch-peer';
import { seededRandom } from '../../server/test-support/synthetic-records';
import { loadAverage, machine, median, percentile, ROOT, sleep } from '../lib';

const RECORDS = Number(process.env.BENCH_PHONE_RECORDS ?? 10_000);
const OPENS = Number(process.env.BENCH_PHONE_OPENS ?? 7);
const SAVES = Number(process.env.BENCH_PHONE_SAVES ?? 10);
const TRACE = process.env.BENCH_PHONE_TRACE === '1';
const PREFIX = 'bench_phone_';
const PHONE_DIR = path.join(ROOT, 'dist', 'phone');

const GOAL_FIRST_SYNC_S = 15;
const GOAL_OFFLINE_OPEN_MS = 1000;
const GOAL_SAVE_P50_MS = 2000;
const GOAL_FIRST_SCREEN_KB = 250;

interface Envelope<T> {
  code: number;
  message: string;
  data: T;
}

async function call<T>(url: string, token: string | null, action: string, params: unknown): Promise<T> {
  const res = await fetch(`${url}/api`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ action, params }),
  });
  const body = (await res.json()) as Envelope<T>;
  if (body.code !== 200) throw new Error(`${action}: ${body.code} ${body.message}`);
  return body.data;
}

async function until(check: () => Promise<boolean>, timeoutMs: number, everyMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`bench:phone timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** A figure as soon as it is measured, on stderr (stdout is the table). */
const progress = (line: string) => process.stderr.write(`bench:phone: ${line}\n`);

const couchAuth = 'Basic ' + Buffer.from(`${COUCH_ADMIN.username}:${COUCH_ADMIN.password}`).toString('base64');

/**
 * The ledger's records written straight into CouchDB, as the desktop's replication stores them:
 * the fields of newRecord (record-factory.ts) with the primary key as `_id`. Spread over the two
 * years before `end`, 10 % income, amounts 1.00–300.99 (minor units), on the ledger's assets.
 */
async function seedCouchRecords(couchUrl: string, db: string, owner: string, assets: readonly string[], income: readonly string[], expense: readonly string[], end: number) {
  const random = seededRandom(7);
  const start = end - 2 * 365 * 86_400_000;
  const pick = <T>(list: readonly T[]): T => {
    const item = list.at(Math.floor(random() * list.length));
    if (item === undefined) throw new Error('bench:phone: nothing to pick from');
    return item;
  };
  for (let done = 0; done < RECORDS; done += 1000) {
    const docs: Array<Record<string, unknown>> = [];
    for (let i = done; i < Math.min(RECORDS, done + 1000); i++) {
      const date = Math.floor(start + random() * (end - start));
      const isIncome = random() < 0.1;
      const record: RecordDoc = newRecord(
        {
          type: isIncome ? 'income' : 'expense',
          amount: 100 + Math.floor(random() * 30_000),
          asset: pick(assets),
          date,
          category: pick(isIncome ? income : expense),
          description: isIncome ? 'Salary' : `Purchase ${i}`,
          tags: random() < 0.2 ? ['work'] : [],
        },
        { id: newId(date), userId: owner, now: date },
      );
      const { id, ...fields } = record;
      docs.push({ _id: id, ...fields });
    }
    const res = await fetch(`${couchUrl}${db}/_bulk_docs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: couchAuth },
      body: JSON.stringify({ docs }),
    });
    const answer = (await res.json()) as Array<{ ok?: boolean; error?: string }>;
    if (res.status !== 201 || answer.some((row) => row.ok !== true)) throw new Error(`bench:phone: _bulk_docs answered ${res.status}: ${JSON.stringify(answer.slice(0, 2))}`);
  }
}

/** The records the phone holds (its RxDB records collection), or -1 before the ledger is open. */
async function phoneRecordCount(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const ledger = (window as unknown as { pennypostPhone?: { docs: { records: { count(): { exec(): Promise<number> } } } } }).pennypostPhone;
    return ledger ? await ledger.docs.records.count().exec() : -1;
  });
}

/** ms from before `goto` until `[data-asset="Cash"]` shows text, and that text. */
async function openOverview(page: Page, url: string): Promise<{ ms: number; inPageMs: number; text: string }> {
  const t0 = performance.now();
  await page.goto(`${url}/phone/?tab=overview`, { waitUntil: 'commit' });
  const handle = await page.waitForFunction(
    () => {
      const text = document.querySelector('[data-asset="Cash"]')?.textContent ?? '';
      return text ? { at: performance.now(), text } : false;
    },
    undefined,
    { polling: 'raf', timeout: 30_000 },
  );
  const ms = performance.now() - t0;
  const seen = (await handle.jsonValue()) as { at: number; text: string };
  await handle.dispose();
  return { ms, inPageMs: seen.at, text: seen.text };
}

/** gzip -9 of index.html and the scripts and style sheets it names (not icons or the manifest). */
function firstScreenBytes(): { total: number; files: Array<{ file: string; raw: number; gzip: number }> } {
  const html = readFileSync(path.join(PHONE_DIR, 'index.html'), 'utf8');
  const names = new Set<string>();
  for (const [, src] of html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)) if (src) names.add(src);
  for (const [tag] of html.matchAll(/<link\b[^>]*>/g)) {
    if (!/\brel="(stylesheet|modulepreload)"/.test(tag)) continue;
    const href = /\bhref="([^"]+)"/.exec(tag)?.[1];
    if (href) names.add(href);
  }
  const files = ['index.html', ...[...names].map((n) => n.replace(/^\.?\//, ''))].map((file) => {
    const bytes = readFileSync(path.join(PHONE_DIR, file));
    return { file, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
  return { total: files.reduce((sum, f) => sum + f.gzip, 0), files };
}

/** An expense typed on the phone's keypad, its category and note set; returns once Save is ready to click. */
async function fillExpense(page: Page, amount: string, note: string): Promise<void> {
  await page.getByRole('button', { name: 'Expense', exact: true }).click();
  for (const key of amount) await page.locator(`.keypad [data-key="${key}"]`).click();
  // The first chip: the most used category of the last 90 days (with a big ledger not always "Food").
  await page.getByRole('group', { name: 'Category' }).getByRole('button').first().click();
  await page.getByRole('button', { name: 'Note, tags, date' }).click();
  await page.getByLabel('Note').fill(note);
}

async function main(): Promise<void> {
  if (!existsSync(path.join(PHONE_DIR, 'index.html'))) throw new Error('Build the phone app first: npm run build (or npx vite build -c vite.phone.config.ts)');
  const loadStart = loadAverage();
  const m = machine();
  const bytes = firstScreenBytes();

  const peer = await CouchPeer.start();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pennypost-bench-phone-'));
  let server: RunningServer | null = null;
  let browser: Browser | null = null;
  try {
    server = await startServer({ dataDir, port: 0, host: '127.0.0.1', logger: createLogger('warn'), settings: { rateLimit: { apiPerToken: 10_000_000, authPerAddress: 1000 } } });
    const url = server.url;
    const owner = await call<{ id: string; token: string }>(url, null, 'user.register', { username: 'phonebench', email: 'phone@example.com', password: 'bench-password' });
    const cash = (await call<{ id: string }>(url, owner.token, 'asset.create', { name: 'Cash', type: 'cash', balance: 2_000_000, currency: 'USD' })).id;
    const bank = (await call<{ id: string }>(url, owner.token, 'asset.create', { name: 'Bank', type: 'debit_card', balance: 2_000_000, currency: 'USD' })).id;
    const categories = (await call<{ list: Array<{ name: string; type: 'income' | 'expense' }> }>(url, owner.token, 'category.list', {})).list;
    const income = categories.filter((c) => c.type === 'income').map((c) => c.name);
    const expense = categories.filter((c) => c.type === 'expense').map((c) => c.name);
    // The peer itself (peer.directUrl), not its recording proxy: what a person's CouchDB would be.
    await call(url, owner.token, 'sync.configure', { url: peer.directUrl, username: COUCH_ADMIN.username, password: COUCH_ADMIN.password, prefix: PREFIX });
    await server.app.services.sync.awaitInSync(owner.id);
    const { link, pairing } = await call<{ link: string; pairing: Pairing }>(url, owner.token, 'sync.addPhone', { label: 'Bench phone', appUrl: `${url}/phone/` });

    const seedStart = performance.now();
    await seedCouchRecords(peer.directUrl, `${pairing.prefix}records`, pairing.owner, [cash, bank], income, expense, Date.now() - 86_400_000);
    const seedSeconds = (performance.now() - seedStart) / 1000;
    progress(`seeded ${RECORDS} records into CouchDB in ${seedSeconds.toFixed(1)} s`);
    // The desktop pulls them too, through its arrival checks: all of them there proves them valid, and it is done before the phone starts.
    await until(
      async () => (await call<{ total: number }>(url, owner.token, 'accounting.query', { pageSize: 1 })).total >= RECORDS,
      300_000,
      100,
      'the desktop to take the seeded records',
    );
    const desktopSeconds = (performance.now() - seedStart) / 1000;
    const cashMinor = Math.round((await call<{ balance: number }>(url, owner.token, 'asset.detail', { id: cash })).balance * 100);

    browser = await chromium.launch({
      executablePath: process.env.PENNYPOST_CHROMIUM || '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    });
    const context = await browser.newContext({ ...devices['Pixel 7'] });
    const page = await context.newPage();
    // BENCH_PHONE_TRACE=1: the phone's requests to CouchDB per phase of the bench.
    let phase = 'first sync';
    let phaseAt = performance.now();
    const setPhase = (name: string) => {
      phase = name;
      phaseAt = performance.now();
    };
    const trace = new Map<string, { count: number; rows: number; lastMs: number }>();
    if (TRACE) {
      page.on('requestfinished', (request) => {
        if (!request.url().startsWith(pairing.url)) return;
        const { pathname } = new URL(request.url());
        const [db = '', ...rest] = pathname.split('/').filter(Boolean);
        const key = `${phase} | ${request.method()} ${db.slice(pairing.prefix.length)}/${rest.join('/')}`;
        const at = performance.now() - phaseAt;
        void request.response().then(async (response) => {
          let rows = 0;
          if (response?.ok() && /\/_(changes|all_docs)$/.test(pathname)) {
            const body = (await response.json().catch(() => ({}))) as { results?: unknown[]; rows?: unknown[] };
            rows = (body.results ?? body.rows ?? []).length;
          }
          const entry = trace.get(key) ?? { count: 0, rows: 0, lastMs: 0 };
          trace.set(key, { count: entry.count + 1, rows: entry.rows + rows, lastMs: Math.max(entry.lastMs, at) });
        });
      });
    }
    // tsx (esbuild keepNames) may wrap named functions in __name(); the page gets a no-op one.
    await page.addInitScript({ content: 'window.__name = (f) => f;' });

    // 1. First sync onto an empty phone.
    const syncStart = performance.now();
    await page.goto(link, { waitUntil: 'commit' });
    await until(async () => (await phoneRecordCount(page)) >= RECORDS, 300_000, 50, `the phone to hold ${RECORDS} records`);
    const firstSyncSeconds = (performance.now() - syncStart) / 1000;
    progress(`first sync: ${firstSyncSeconds.toFixed(1)} s`);
    // The records are in IndexedDB before RxDB has stored how far it got (its checkpoints): a reload
    // right now would pull the last batches again. The person closes the app once it is in sync.
    await page.evaluate(async () => {
      await (window as unknown as { pennypostPhone: { awaitInSync(): Promise<void> } }).pennypostPhone.awaitInSync();
    });
    const inSyncSeconds = (performance.now() - syncStart) / 1000;
    progress(`first sync, every replication in sync: ${inSyncSeconds.toFixed(1)} s`);

    // 2. Offline opens: the service worker in control, the figures of a full open saved.
    await until(() => page.evaluate(() => navigator.serviceWorker.controller !== null), 30_000, 50, 'the service worker to control the page');
    setPhase('reload');
    await page.reload();
    await until(
      () =>
        page.evaluate((want) => {
          const text = localStorage.getItem('pennypost-phone:summary');
          const summary = text ? (JSON.parse(text) as { assets?: Array<{ name: string; balance: number }> }) : null;
          return summary?.assets?.find((a) => a.name === 'Cash')?.balance === want;
        }, cashMinor),
      60_000,
      50,
      'the phone to save the full ledger’s figures (Cash as on the desktop)',
    );
    await context.setOffline(true);
    setPhase('offline opens');
    const opens: Array<{ ms: number; inPageMs: number; text: string }> = [];
    for (let i = 0; i < OPENS; i++) opens.push(await openOverview(page, url));
    progress(`offline opens: ${opens.map((o) => o.ms.toFixed(0)).join(', ')} ms`);
    const shown = new Set(opens.map((o) => o.text));
    if (shown.size !== 1) throw new Error(`bench:phone: the offline opens showed different Cash balances: ${[...shown].join(', ')}`);
    await context.setOffline(false);

    // 3. Expenses saved on the phone, both online, until the desktop lists each.
    setPhase('online open and saves');
    const onlineOpenAt = performance.now();
    await page.goto(`${url}/phone/`, { waitUntil: 'commit' });
    await page.getByTestId('sync-status').filter({ hasText: 'Synced' }).waitFor({ timeout: 60_000 });
    // Not waited for: when every replication of the phone has done its first pass both ways (RxDB's awaitInSync).
    const inSyncAfter = page
      .evaluate(async () => {
        await (window as unknown as { pennypostPhone: { awaitInSync(): Promise<void> } }).pennypostPhone.awaitInSync();
      })
      .then(
        () => performance.now() - onlineOpenAt,
        () => NaN,
      );
    const saves: number[] = [];
    // When CouchDB answered the phone's push of each saved record (the part of a save before the desktop's pull).
    const written = new Map<string, number>();
    page.on('requestfinished', (request) => {
      if (request.method() !== 'POST' || !request.url().startsWith(`${pairing.url}${pairing.prefix}records/_bulk_docs`)) return;
      for (const [, note] of (request.postData() ?? '').matchAll(/"description":"(phonebench\d+save)"/g)) if (note && !written.has(note)) written.set(note, performance.now());
    });
    const clicks: Array<{ note: string; at: number }> = [];
    for (let i = 0; i < SAVES; i++) {
      const note = `phonebench${i}save`;
      await fillExpense(page, String(1 + i), note);
      const t0 = performance.now();
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await until(
        async () => (await call<{ total: number }>(url, owner.token, 'accounting.query', { text: note, pageSize: 1 })).total >= 1,
        60_000,
        25,
        `the desktop to list "${note}"`,
      );
      saves.push(performance.now() - t0);
      clicks.push({ note, at: t0 });
      progress(`save ${i + 1}: ${saves.at(-1)?.toFixed(0) ?? '?'} ms`);
      // The form is cleared (Save disabled again) before the next one is typed.
      await page.waitForFunction(() => document.querySelector<HTMLButtonElement>('form.record-form button[type="submit"]')?.disabled === true, undefined, { timeout: 30_000 });
    }
    const inSyncMs = await inSyncAfter;
    const firstClickMs = (clicks.at(0)?.at ?? NaN) - onlineOpenAt;
    const pushed = clicks.map((c) => (written.get(c.note) ?? NaN) - c.at);
    await context.close();

    const openMs = opens.map((o) => o.ms);
    const kb = bytes.total / 1000;
    const rows: Array<[string, string, string, string]> = [
      [
        `first sync of ${RECORDS.toLocaleString('en')} records onto an empty phone (pairing link opened → all in IndexedDB)`,
        `${firstSyncSeconds.toFixed(1)} s`,
        `≤ ${GOAL_FIRST_SYNC_S} s`,
        'Actual: —',
      ],
      [
        `offline open of the app, its service worker in control (${RECORDS.toLocaleString('en')} records) → Cash balance on screen, median of ${OPENS}`,
        `${median(openMs).toFixed(0)} ms (min ${Math.min(...openMs).toFixed(0)}, max ${Math.max(...openMs).toFixed(0)})`,
        `≤ ${GOAL_OFFLINE_OPEN_MS.toLocaleString('en')} ms median`,
        'Actual: —',
      ],
      [
        `expense saved on the phone → listed by the desktop, p50 / p95 of ${SAVES}`,
        `${percentile(saves, 50).toFixed(0)} / ${percentile(saves, 95).toFixed(0)} ms`,
        `p50 ≤ ${GOAL_SAVE_P50_MS.toLocaleString('en')} ms`,
        'Actual: —',
      ],
      [`first screen: index.html + its JS and CSS, gzip -9`, `${kb.toFixed(1)} kB`, `≤ ${GOAL_FIRST_SCREEN_KB} kB`, 'Actual: —'],
    ];
    const verdicts = [firstSyncSeconds <= GOAL_FIRST_SYNC_S, median(openMs) <= GOAL_OFFLINE_OPEN_MS, percentile(saves, 50) <= GOAL_SAVE_P50_MS, kb <= GOAL_FIRST_SCREEN_KB];

    console.log(
      `\nPhone benchmark: the built phone app (dist/phone) at /phone/ of a PennyPost in this process, headless Chromium (${browser.version()}) as a Pixel 7, the CouchDB peer of the tests (PouchDB Server from npm, its own process)`,
    );
    console.log(`machine: ${m.cpu} × ${m.cores}, ${m.memoryGb} GB, node ${m.node}; load average (1/5/15 min) at start ${loadStart.join(' / ')}\n`);
    console.log('| figure | measured | target | peer |');
    console.log('|---|---|---|---|');
    for (const row of rows) console.log(`| ${row.join(' | ')} |`);
    console.log('');
    console.log(`goals met: ${verdicts.map((ok, i) => `${i + 1} ${ok ? 'yes' : 'NO'}`).join(', ')}`);
    console.log(
      `first sync: all ${RECORDS.toLocaleString('en')} records in IndexedDB after ${firstSyncSeconds.toFixed(1)} s; every replication in sync (RxDB awaitInSync) after ${inSyncSeconds.toFixed(1)} s`,
    );
    console.log(
      `seeding: ${RECORDS.toLocaleString('en')} records into CouchDB with _bulk_docs in ${seedSeconds.toFixed(1)} s; the desktop held them all ${desktopSeconds.toFixed(1)} s after the seeding began`,
    );
    console.log(
      `offline opens (ms from goto to the balance, wall clock): ${openMs.map((n) => n.toFixed(0)).join(', ')}; in the page, from navigation start: ${opens.map((o) => o.inPageMs.toFixed(0)).join(', ')}; Cash shown ${opens[0]?.text ?? '?'} (desktop ${(cashMinor / 100).toFixed(2)})`,
    );
    console.log(`saves (ms from the click on Save until accounting.query lists it, polled every 25 ms): ${saves.map((n) => n.toFixed(0)).join(', ')}`);
    console.log(`  of which until CouchDB answered the phone's push (_bulk_docs seen by the browser): ${pushed.map((n) => n.toFixed(0)).join(', ')}`);
    console.log(
      `  the app opened online before the saves: every replication of the phone in sync ${inSyncMs.toFixed(0)} ms after the navigation; the first Save was clicked ${firstClickMs.toFixed(0)} ms after it`,
    );
    console.log(`first screen files: ${bytes.files.map((f) => `${f.file} ${(f.raw / 1000).toFixed(1)} kB → ${(f.gzip / 1000).toFixed(1)} kB gzip`).join('; ')}`);
    if (TRACE) {
      console.log('\nthe phone’s requests to CouchDB (BENCH_PHONE_TRACE=1): phase | request | count | rows of _changes/_all_docs | last one, ms into the phase');
      for (const [key, entry] of trace) console.log(`${key} | ${entry.count} | ${entry.rows} | ${entry.lastMs.toFixed(0)}`);
    }
    console.log(`load average (1/5/15 min) at end ${loadAverage().join(' / ')}`);
  } finally {
    await browser?.close();
    await server?.close();
    await peer.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
