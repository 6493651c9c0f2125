import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { parseNoticeFields, parseNoticeText } from './notice-parsers';

/**
 * Issue 34, "Also": the notice parsers (the inbox) take time linear in their input, hostile input
 * included. A notice is at most 8 KB on the wire (INBOX_BODY_LIMIT); the parsers are timed on n and
 * 8n characters (up to 128 KB, far past that) of shapes a quadratic step would choke on, and 8
 * times the input must take well under 64 times as long (the bound, 24, leaves room for a loaded
 * 2-core machine). CPU time of the fastest of three runs, after a full garbage collection.
 */

const OPTIONS = { now: Date.UTC(2026, 10, 28, 12), timeZone: 'Asia/Shanghai' };
const RATIO_LIMIT = 24;
const FLOOR_MS = 5;

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

function cpuMs(run: () => unknown): number {
  let best = Infinity;
  for (let round = 0; round < 3; round++) {
    collectGarbage();
    const started = process.cpuUsage();
    run();
    const used = process.cpuUsage(started);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

function expectLinear(make: (n: number) => string, n: number, parse: (text: string) => unknown = (text) => parseNoticeText(text, OPTIONS)) {
  const small = make(n);
  const large = make(8 * n);
  parse(small); // warm up
  const a = Math.max(
    FLOOR_MS,
    cpuMs(() => parse(small)),
  );
  const b = Math.max(
    FLOOR_MS,
    cpuMs(() => parse(large)),
  );
  expect(b / a, `${small.length} → ${large.length} characters: ${a.toFixed(1)} → ${b.toFixed(1)} ms`).toBeLessThan(RATIO_LIMIT);
}

describe('the notice parsers take time linear in their input', () => {
  const cases: Array<[string, (n: number) => string]> = [
    ['amounts one after another', (n) => '消费25.00元，'.repeat(n)],
    ['a run of digits', (n) => `您尾号1234的卡消费${'1'.repeat(n * 8)}元`],
    ['a run of separators inside an amount', (n) => `消费1${','.repeat(n * 8)}2.00元`],
    ['card tails without end', (n) => '尾号1234'.repeat(n)],
    ['times and dates', (n) => '11月28日18:42 '.repeat(n)],
    ['brackets never closed', (n) => `支付宝：你在${'(【'.repeat(n * 2)}瑞幸咖啡成功付款15.90元`],
    ['merchant labels without end', (n) => '商户：'.repeat(n * 2) + '消费1.00元'],
    ['English words', (n) => 'Your card ending 1234 was charged USD '.repeat(n) + '12.00'],
    ['spaces', (n) => `消费${' '.repeat(n * 8)}25.00元`],
  ];
  for (const [name, make] of cases) it(name, () => expectLinear(make, 2000));

  it('fields (an iOS Shortcut’s JSON) with long values', () => {
    const fields = (n: number) => ({ amount: '1' + ','.repeat(n * 8) + '2.50', merchant: '店'.repeat(n * 8), text: '消费25.00元，'.repeat(n) });
    const small = fields(2000);
    const large = fields(16000);
    parseNoticeFields(small, OPTIONS);
    const a = Math.max(
      FLOOR_MS,
      cpuMs(() => parseNoticeFields(small, OPTIONS)),
    );
    const b = Math.max(
      FLOOR_MS,
      cpuMs(() => parseNoticeFields(large, OPTIONS)),
    );
    expect(b / a, `${a.toFixed(1)} → ${b.toFixed(1)} ms`).toBeLessThan(RATIO_LIMIT);
  });
});
