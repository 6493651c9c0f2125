import { useEffect, useState } from 'react';
import type { RxCollection } from 'rxdb/plugins/core';
import type { AssetDoc, CategoryDoc, RateDoc, RecordDoc } from '../../../server/ledger/schema';
import type { PlanDoc } from '../../../server/planning/schema';
import { buildModel, type LedgerModel, type Summary } from '../data/ledger-model';
import type { PhoneLedger, SyncState } from '../data/phone-db';
import { saved } from '../data/saved';

/**
 * The screens' view of the phone's ledger: recomputed from IndexedDB a moment after a collection
 * changes (a sync batch of hundreds of documents is one recomputation), and the first screen's
 * figures saved for the next open.
 */
export function useLedger(ledger: PhoneLedger | null): { model: LedgerModel | null; summary: Summary | null; sync: SyncState | null } {
  const [model, setModel] = useState<LedgerModel | null>(null);
  const [sync, setSync] = useState<SyncState | null>(ledger?.sync ?? null);
  const [summary] = useState<Summary | null>(() => saved.summary.get() as Summary | null);

  useEffect(() => {
    if (!ledger) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const read = async <T>(name: keyof PhoneLedger['docs']): Promise<T[]> => {
      const docs = await (ledger.docs[name] as unknown as RxCollection<T>).find().exec();
      return docs.map((d) => d.toJSON() as T);
    };
    // One recomputation at a time, and never more often than twice its own cost: a first sync of
    // thousands of records arrives in hundreds of change events and must not starve the page.
    let running = false;
    let dirty = false;
    let cost = 0;
    const recompute = async () => {
      if (running) {
        dirty = true;
        return;
      }
      running = true;
      const started = performance.now();
      try {
        await compute();
      } finally {
        cost = performance.now() - started;
        running = false;
      }
      if (dirty) {
        dirty = false;
        soon();
      }
    };
    const compute = async () => {
      const [assets, records, categories, rates, plans] = await Promise.all([
        read<AssetDoc>('assets'),
        read<RecordDoc>('records'),
        read<CategoryDoc>('categories'),
        read<RateDoc>('rates'),
        read<PlanDoc>('plans'),
      ]);
      if (stopped) return;
      const next = buildModel({ assets, records, categories, rates, plans }, ledger.pairing.owner, ledger.pairing.base);
      setModel(next);
      saved.summary.set({ base: next.base, assets: next.assets, netWorth: next.netWorth, month: next.month } satisfies Summary);
    };
    const soon = () => {
      clearTimeout(timer);
      timer = setTimeout(() => void recompute(), Math.max(60, 2 * cost));
    };
    void recompute();
    const subscriptions = (Object.values(ledger.docs) as RxCollection[]).map((collection) => collection.$.subscribe(soon));
    const unsubscribe = ledger.subscribe(setSync);
    return () => {
      stopped = true;
      clearTimeout(timer);
      for (const s of subscriptions) s.unsubscribe();
      unsubscribe();
    };
  }, [ledger]);

  return { model, summary, sync };
}
