import { useCallback, useMemo, useRef, useState } from 'react';
import { call, type ParamsOf } from '../../api/client';
import type { LedgerRecord } from '../../lib/ledger';

/** "Select all in results" takes at most this many records (the server's limit for one bulk change). */
export const SELECT_ALL_MAX = 1000;

/** The records checked in the list (kept with their data: the bulk bar needs their types and tags). */
export function useSelection(rowAt: (index: number) => LedgerRecord | undefined) {
  const [selected, setSelected] = useState<Map<string, LedgerRecord>>(() => new Map());
  const anchor = useRef<number | null>(null);

  const toggle = useCallback(
    (index: number, record: LedgerRecord, shift: boolean) => {
      // read now: the updater below runs later, after the anchor has moved to this row
      const from = shift ? anchor.current : null;
      setSelected((prev) => {
        const next = new Map(prev);
        const on = !prev.has(record.id);
        if (from !== null) {
          const [a, b] = from < index ? [from, index] : [index, from];
          for (let i = a; i <= b; i++) {
            const r = rowAt(i);
            if (!r) continue;
            if (on) next.set(r.id, r);
            else next.delete(r.id);
          }
        } else if (on) next.set(record.id, record);
        else next.delete(record.id);
        return next;
      });
      anchor.current = index;
    },
    [rowAt],
  );

  const clear = useCallback(() => {
    setSelected(new Map());
    anchor.current = null;
  }, []);

  /** Selects every record of the current results (up to SELECT_ALL_MAX), fetched 200 at a time. */
  const selectAll = useCallback(async (query: ParamsOf<'accounting.query'>, total: number) => {
    const next = new Map<string, LedgerRecord>();
    const want = Math.min(total, SELECT_ALL_MAX);
    for (let page = 1; next.size < want; page++) {
      const result = await call('accounting.query', { ...query, page, pageSize: 200 });
      for (const r of result.list) if (next.size < want) next.set(r.id, r);
      if (result.list.length < 200) break;
    }
    setSelected(next);
    anchor.current = null;
  }, []);

  const list = useMemo(() => [...selected.values()], [selected]);
  return { selected, list, toggle, clear, selectAll };
}
