import { useMemo, useState } from 'react';
import { foldText } from '../../../server/lib/fold-text';
import type { RecordDoc } from '../../../server/ledger/schema';
import type { LedgerModel } from '../data/ledger-model';
import type { Wording } from '../i18n';

const PAGE = 100;

/** Recent records, newest first, found by their note, category, tags or asset. */
export function RecordsScreen({ model, w, onOpen }: { model: LedgerModel; w: Wording; onOpen: (record: RecordDoc) => void }) {
  const [query, setQuery] = useState('');
  const [shown, setShown] = useState(PAGE);
  const found = useMemo(() => {
    const q = foldText(query.trim());
    if (!q) return model.records;
    return model.records.filter((r) => {
      const asset = model.assetById.get(r.asset)?.name ?? '';
      return r.searchText.includes(q) || foldText(r.category).includes(q) || r.tags.some((t) => foldText(t).includes(q)) || foldText(asset).includes(q);
    });
  }, [model, query]);
  const list = found.slice(0, shown);
  let lastDay = '';
  return (
    <section className="screen" aria-label={w.t('records')}>
      <input type="search" className="search" placeholder={w.t('search')} aria-label={w.t('search')} value={query} onChange={(e) => setQuery(e.target.value)} />
      {model.records.length === 0 && <p className="empty">{w.t('noRecords')}</p>}
      {model.records.length > 0 && found.length === 0 && <p className="empty">{w.t('noMatch')}</p>}
      <ul className="records">
        {list.map((r) => {
          const day = w.day(r.date);
          const header = day !== lastDay ? day : null;
          lastDay = day;
          const asset = model.assetById.get(r.asset);
          const currency = asset?.currency ?? model.base;
          const title = r.type === 'transfer' ? `${asset?.name ?? '?'} → ${model.assetById.get(r.toAsset)?.name ?? '?'}` : r.category || w.t(r.type);
          const sign = r.type === 'expense' ? '−' : r.type === 'income' ? '+' : '';
          return (
            <li key={r.id}>
              {header && <h3 className="day">{header}</h3>}
              <button type="button" className={`record ${r.type}`} onClick={() => onOpen(r)} data-testid="record-row">
                <span className="record-title">{title}</span>
                <span className="record-note">{[r.description, r.type === 'transfer' ? '' : asset?.name].filter(Boolean).join(' · ')}</span>
                <span className="record-amount">
                  {sign}
                  {w.money(r.amount, currency)}
                </span>
              </button>
            </li>
          );
        })}
      </ul>
      {found.length > shown && (
        <button type="button" className="secondary wide" onClick={() => setShown(shown + PAGE)}>
          …
        </button>
      )}
    </section>
  );
}
