import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Coalescer } from '../history';
import { startPushServer } from './helpers';

describe('history group commit', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('commits what arrives during a flush together in the next one, and resolves each add only when its batch is written', async () => {
    const flushed: number[][] = [];
    let release: () => void = () => undefined;
    const coalescer = new Coalescer<number>(async (items) => {
      flushed.push(items);
      await new Promise<void>((resolve) => (release = resolve));
    });
    const done = new Set<number>();
    const adds = Array.from({ length: 50 }, (_, i) => coalescer.add(i).then(() => done.add(i)));
    await Promise.resolve();
    // The first add started a flush of its own; the 49 others wait for it to end.
    expect(flushed).toEqual([[0]]);
    expect(done.size).toBe(0);
    release();
    await vi.waitFor(() => expect(flushed).toHaveLength(2));
    expect(flushed[1]).toEqual(Array.from({ length: 49 }, (_, i) => i + 1));
    expect([...done]).toEqual([0]);
    release();
    await Promise.all(adds);
    expect(done.size).toBe(50);
  });

  it('50 concurrent pushes to a receiver share journal and history writes; every row is stored before its answer; the journal ends empty', async () => {
    const receiver = createServer((_req, res) => res.end('{}'));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const h = await startPushServer();
    try {
      const { port } = receiver.address() as AddressInfo;
      const { appKey } = await h.setup({ type: 'webhook', config: { format: 'json', url: `http://127.0.0.1:${port}` }, recipients: ['hook'] });
      const local = h.server.app.db.local;
      const journalPuts = vi.spyOn(local, 'put');
      const journalBatches = vi.spyOn(local, 'batch');
      const history = h.server.app.services.push.history;
      const inserts = vi.spyOn(history.collection, 'bulkInsert');
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => h.push(`/send/${appKey}`, { query: { title: `alert ${i}` } })));
      expect(answers.map((a) => a.status)).toEqual(Array<number>(50).fill(200));
      // Each answer comes after its row is written: every pushId is in the history at once.
      const ids = answers.map((a) => a.body.data.pushId as string);
      const rows = await history.collection.findByIds(ids).exec();
      expect(rows.size).toBe(50);
      const journalWrites = journalPuts.mock.calls.filter(([key]) => key.startsWith('push-pending:')).length;
      expect(journalWrites).toBeGreaterThan(0);
      expect(journalWrites).toBeLessThan(50);
      expect(inserts.mock.calls.length).toBeLessThan(50);
      await history.drain();
      expect(await local.entries('push-pending:')).toEqual([]);
      // Dropping finished journal records takes no fsync of its own (recover() drops leftovers at the next start).
      const deletes = journalBatches.mock.calls.filter(([ops]) => ops.every((op) => op.type === 'del' && op.key.startsWith('push-pending:')));
      expect(deletes.length).toBeGreaterThan(0);
      for (const [, options] of deletes) expect(options).toEqual({ durable: false });
    } finally {
      await h.close();
      receiver.close();
    }
  });

  it('desktop pushes (delivered in this process) write no journal, only their history rows, before answering', async () => {
    const h = await startPushServer();
    try {
      const { appKey } = await h.setup({ type: 'desktop' });
      const journalPuts = vi.spyOn(h.server.app.db.local, 'put');
      const history = h.server.app.services.push.history;
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => h.push(`/send/${appKey}`, { query: { title: `alert ${i}` } })));
      expect(answers.map((a) => a.status)).toEqual(Array<number>(20).fill(200));
      const rows = await history.collection.findByIds(answers.map((a) => a.body.data.pushId as string)).exec();
      expect([...rows.values()].map((row) => row.status)).toEqual(Array<string>(20).fill('success'));
      expect(journalPuts.mock.calls.filter(([key]) => key.startsWith('push-pending:'))).toEqual([]);
    } finally {
      await h.close();
    }
  });
});
