import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { parseStatement } from '../formats/registry';
import { fixture } from '../formats/tests/helpers';
import { StatementError } from '../formats/types';
import { StatementReader } from '../pipeline/statement-reader';

/**
 * Issue 34, finding 2: statement files are read in worker threads (pipeline/statement-reader.ts),
 * so the server's own thread never holds the event loop while a file is parsed; a file that takes
 * longer than the time budget is refused with a clear StatementError and its thread replaced.
 */

const readers: StatementReader[] = [];
afterEach(async () => {
  while (readers.length > 0) await readers.pop()?.close();
});
const reader = (options: ConstructorParameters<typeof StatementReader>[0] = {}) => {
  const made = new StatementReader(options);
  readers.push(made);
  return made;
};
const SHANGHAI = { timeZone: 'Asia/Shanghai' };

/** A QIF file of `count` ordinary records (about 60 bytes each). */
const bigQif = (count: number) => Buffer.from(`!Type:Bank\n${'D01/02/2024\nT-12.50\nPShop\nMCoffee\nLFood\n^\n'.repeat(count)}`);

async function refusal(promise: Promise<unknown>): Promise<StatementError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof StatementError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('StatementReader', () => {
  it('reads a file in a worker thread exactly as the parser does on this one', async () => {
    const bytes = fixture('ofx/multi-statement.ofx');
    const here = await parseStatement('ofx', bytes, SHANGHAI);
    const there = await reader().parse('ofx', bytes, SHANGHAI);
    expect(there).toEqual(here);
    const wechat = fixture('wechat/wechat-bill.csv');
    expect(await reader().parse('wechat', wechat, SHANGHAI)).toEqual(await parseStatement('wechat', wechat, SHANGHAI));
  });

  it('passes a refusal on as the parser made it', async () => {
    const error = await refusal(reader().parse('ofx', Buffer.from('<html>not a statement</html>'), SHANGHAI));
    expect(error.kind).toBe('notThisFormat');
    expect(error.message).toMatch(/not an OFX/);
  });

  it('keeps the event loop free while a large file is read', async () => {
    const bytes = bigQif(100_000); // 6 MB: about a second of parsing
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const parsed = await reader().parse('qif', bytes, SHANGHAI);
    delay.disable();
    expect(parsed.lines).toHaveLength(100_000);
    // Taking in the lines (2,000 per message) is the only work left on this thread.
    expect(delay.max / 1e6).toBeLessThan(250);
  });

  it('refuses a file that takes longer than the time budget, and reads the next one in a new thread', async () => {
    // 300 ms: far below what 100,000 QIF lines need, far above a small file's read in a fresh thread
    // (50 ms refused bank-us.qif once, beside other test files on 2 cores).
    const quick = reader({ budgetMs: 300, workers: 1 });
    const started = performance.now();
    const error = await refusal(quick.parse('qif', bigQif(100_000), SHANGHAI));
    expect(error.kind).toBe('tooSlow');
    expect(error.message).toMatch(/took longer than 0\.3 s/);
    expect(performance.now() - started).toBeLessThan(5000);
    const next = await quick.parse('qif', fixture('qif/bank-us.qif'), SHANGHAI);
    expect(next.lines.length).toBeGreaterThan(0);
  });

  it('answers 503 when more files wait than it queues', async () => {
    const small = reader({ workers: 1, maxWaiting: 1 });
    const first = small.parse('qif', bigQif(100_000), SHANGHAI);
    const second = small.parse('qif', fixture('qif/bank-us.qif'), SHANGHAI);
    await expect(small.parse('qif', fixture('qif/bank-us.qif'), SHANGHAI)).rejects.toMatchObject({ code: 503 });
    expect((await first).lines).toHaveLength(100_000);
    expect((await second).lines.length).toBeGreaterThan(0);
  });

  it('describes a generic CSV once per way of reading it', async () => {
    const csv = Buffer.from('skip me\nDate,Amount,Payee\n2024-01-05,-1.00,Shop\n');
    const [plain, skipped, found] = await reader().describe(csv, [{ skipRows: 0 }, { skipRows: 1 }, {}]);
    expect(plain).toMatchObject({ ok: true, description: { headers: ['skip me'] } });
    expect(skipped).toMatchObject({ ok: true, description: { headers: ['Date', 'Amount', 'Payee'], guess: { date: 0, amount: 1, payee: 2 } } });
    // Without rows to skip, the line above the header row is skipped by itself.
    expect(found).toMatchObject({ ok: true, description: { headers: ['Date', 'Amount', 'Payee'], skipRows: 1, guess: { date: 0, amount: 1, payee: 2, skipRows: 1 } } });
  });
});
