import { describe, expect, it } from 'vitest';
import { deliver, type DeliveryTarget, type Outcome } from '../deliver';

/**
 * Delivery through a channel's batch call (WeCom applications take up to 1,000 members a call): one
 * call per batch, each target with its own result, transient failures retried for the targets they
 * hit, a systemic failure stopping the batches still queued, failover still one at a time.
 */

const targets = (n: number): DeliveryTarget[] => Array.from({ length: n }, (_, i) => ({ label: `t${i}` }));

function plan(n: number, answer: (labels: string[], call: number) => Outcome[], mode: 'all' | 'first' = 'all') {
  const calls: string[][] = [];
  const single: string[] = [];
  return {
    calls,
    single,
    run: () =>
      deliver({
        targets: targets(n),
        mode,
        concurrency: 8,
        deadline: performance.now() + 5000,
        callTimeoutMs: 1000,
        send: (target) => {
          single.push(target.label);
          return Promise.resolve({ ok: true });
        },
        sendBatch: (batch) => {
          const labels = batch.map((t) => t.label);
          calls.push(labels);
          return Promise.resolve(answer(labels, calls.length));
        },
        batchMax: 2,
      }),
  };
}

const ok: Outcome = { ok: true, msgId: 'm' };
const busy: Outcome = { ok: false, cls: 'transient', message: 'busy' };

describe('delivery in batches', () => {
  it('sends batchMax targets a call and retries only the targets a transient failure hit', async () => {
    const p = plan(3, (labels, call) => labels.map((label) => (label === 't1' && call === 1 ? busy : ok)));
    const results = await p.run();
    expect(p.calls).toEqual([['t0', 't1'], ['t1'], ['t2']]);
    expect(results.map((r) => [r.recipient, r.ok, r.attempts])).toEqual([
      ['t0', true, 1],
      ['t1', true, 2],
      ['t2', true, 1],
    ]);
    expect(p.single).toEqual([]);
  });

  it('gives up after 3 attempts, and does not retry what the channel says will not pass now', async () => {
    const throttled: Outcome = { ok: false, cls: 'transient', message: 'limit', retryable: false };
    const p = plan(2, (labels) => labels.map((label) => (label === 't0' ? busy : throttled)));
    const results = await p.run();
    expect(p.calls).toEqual([['t0', 't1'], ['t0'], ['t0']]);
    expect(results.map((r) => [r.class, r.attempts])).toEqual([
      ['transient', 3],
      ['transient', 1],
    ]);
  });

  it('a systemic failure stops the batches still queued', async () => {
    const broken: Outcome = { ok: false, cls: 'systemic', message: 'IP not trusted', errcode: 60020 };
    const p = plan(5, (labels) => labels.map(() => broken));
    const results = await p.run();
    expect(p.calls).toEqual([['t0', 't1']]);
    expect(results.map((r) => [r.recipient, r.class, r.attempts, r.errmsg])).toEqual([
      ['t0', 'systemic', 1, 'IP not trusted'],
      ['t1', 'systemic', 1, 'IP not trusted'],
      ['t2', 'systemic', 0, 'Not sent: IP not trusted'],
      ['t3', 'systemic', 0, 'Not sent: IP not trusted'],
      ['t4', 'systemic', 0, 'Not sent: IP not trusted'],
    ]);
  });

  it('failover (pushMode first) still tries one target at a time', async () => {
    const p = plan(3, (labels) => labels.map(() => ok), 'first');
    const results = await p.run();
    expect(p.calls).toEqual([]);
    expect(p.single).toEqual(['t0']);
    expect(results).toHaveLength(1);
  });

  it('refuses a batch answer of the wrong length (a driver bug, not a delivery outcome)', async () => {
    await expect(plan(2, () => [ok]).run()).rejects.toThrow(/a batch of 2 answered 1 outcomes/);
  });
});
