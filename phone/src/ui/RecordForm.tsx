import { useMemo, useState } from 'react';
import { currencyDecimals, toMajor } from '../../../server/lib/money';
import type { RecordDoc, RecordType } from '../../../server/ledger/schema';
import type { LedgerModel } from '../data/ledger-model';
import { saved } from '../data/saved';
import type { RecordInput } from '../data/writes';
import type { Wording } from '../i18n';
import { Keypad } from './Keypad';

const TYPES: RecordType[] = ['expense', 'income', 'transfer'];
const SHOWN_CATEGORIES = 8;

const dayText = (ms: number) => {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};

/** The date picked, at the time of day now (today) or the record's own time (an edit that keeps the day). */
function dateFrom(text: string, keep: number): number {
  const [y, m, d] = text.split('-').map(Number);
  if (!y || !m || !d) return keep;
  const at = new Date(keep);
  return new Date(y, m - 1, d, at.getHours(), at.getMinutes(), at.getSeconds()).getTime();
}

interface Props {
  model: LedgerModel;
  w: Wording;
  /** The record being edited; absent: a new one. */
  current?: RecordDoc;
  readOnly: boolean;
  onSave: (input: RecordInput) => Promise<void>;
  onDelete?: () => void;
  onCancel?: () => void;
}

/**
 * Capture first: type the amount on the pad, tap a category (the most used first), save — the asset
 * is the one used last. Transfers ask for the asset it goes to and, between two currencies, the
 * amount received. Note, tags and date are one tap away.
 */
export function RecordForm({ model, w, current, readOnly, onSave, onDelete, onCancel }: Props) {
  const live = model.assets.filter((a) => !a.archived);
  const lastUsed = saved.lastAsset.get();
  // Until one is picked: the record's, else the one used last, else the desktop's default (the
  // list may still be filling on a first sync, so this is worked out on every render).
  const fallbackAsset = current?.asset ?? (live.find((a) => a.id === lastUsed) ?? live.find((a) => a.isDefault) ?? live.at(0))?.id ?? '';
  const [type, setType] = useState<RecordType>(current?.type ?? 'expense');
  const [picked, setAsset] = useState('');
  const asset = picked && model.assetById.has(picked) ? picked : fallbackAsset;
  const assetCurrency = model.assetById.get(asset)?.currency ?? model.base;
  const [amount, setAmount] = useState(current ? String(toMajor(current.amount, assetCurrency)) : '');
  const [category, setCategory] = useState(current?.category ?? '');
  const [toAsset, setToAsset] = useState(current?.toAsset ?? '');
  const [toAmount, setToAmount] = useState(current?.toAmount ? String(toMajor(current.toAmount, model.assetById.get(current.toAsset)?.currency ?? model.base)) : '');
  const [description, setDescription] = useState(current?.description ?? '');
  const [tags, setTags] = useState(current?.tags.join(', ') ?? '');
  const [date, setDate] = useState(dayText(current?.date ?? Date.now()));
  const [details, setDetails] = useState(Boolean(current));
  const [allCategories, setAllCategories] = useState(false);
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);

  const categories = type === 'income' ? model.categories.income : model.categories.expense;
  const shown = allCategories ? [...categories] : categories.slice(0, SHOWN_CATEGORIES);
  if (category && !shown.includes(category) && categories.includes(category)) shown.push(category);
  const toCurrency = model.assetById.get(toAsset)?.currency;
  const crossCurrency = type === 'transfer' && toCurrency !== undefined && toCurrency !== assetCurrency;
  const decimals = useMemo(() => currencyDecimals(assetCurrency), [assetCurrency]);

  const submit = async () => {
    setProblem('');
    if (type !== 'transfer' && !category) {
      setProblem(w.t('chooseCategory'));
      return;
    }
    if (!asset) {
      setProblem(w.t('chooseAsset'));
      return;
    }
    setBusy(true);
    try {
      await onSave({
        type,
        amount,
        asset,
        toAsset: type === 'transfer' ? toAsset : undefined,
        toAmount: crossCurrency ? toAmount : undefined,
        category: type === 'transfer' ? '' : category,
        description,
        tags: tags
          .split(/[,，]/)
          .map((t) => t.trim())
          .filter(Boolean),
        date: dateFrom(date, current?.date ?? Date.now()),
      });
      saved.lastAsset.set(asset);
      if (!current) {
        setAmount('');
        setDescription('');
        setTags('');
        setToAmount('');
        setDetails(false);
      }
    } catch (error) {
      setProblem((error as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="record-form"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
      aria-label={current ? w.t('edit') : w.t('capture')}
    >
      <div className="types" role="group" aria-label={w.t('recordType')}>
        {TYPES.map((t) => (
          <button key={t} type="button" className={t === type ? 'type on' : 'type'} aria-pressed={t === type} onClick={() => setType(t)}>
            {w.t(t)}
          </button>
        ))}
      </div>
      <output className="amount-display" aria-label={w.t('amount')} data-testid="amount">
        <span className="amount-number">{amount || '0'}</span> <span className="amount-currency">{assetCurrency}</span>
      </output>
      <Keypad value={amount} decimals={decimals} onChange={setAmount} w={w} />
      {type !== 'transfer' && (
        <div className="chips" role="group" aria-label={w.t('category')}>
          {shown.map((name) => (
            <button key={name} type="button" className={name === category ? 'chip on' : 'chip'} aria-pressed={name === category} onClick={() => setCategory(name)}>
              {name}
            </button>
          ))}
          {!allCategories && categories.length > SHOWN_CATEGORIES && (
            <button type="button" className="chip more" onClick={() => setAllCategories(true)} aria-label={w.t('category')}>
              …
            </button>
          )}
        </div>
      )}
      <label className="field">
        <span>{type === 'transfer' ? w.t('fromAsset') : w.t('asset')}</span>
        <select value={asset} onChange={(e) => setAsset(e.target.value)}>
          {live.map((a) => (
            <option key={a.id} value={a.id}>
              {a.name} · {w.money(a.balance, a.currency)}
            </option>
          ))}
        </select>
      </label>
      {type === 'transfer' && (
        <label className="field">
          <span>{w.t('toAsset')}</span>
          <select value={toAsset} onChange={(e) => setToAsset(e.target.value)}>
            <option value="">—</option>
            {live
              .filter((a) => a.id !== asset)
              .map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name} · {a.currency}
                </option>
              ))}
          </select>
        </label>
      )}
      {crossCurrency && (
        <label className="field">
          <span>{w.t('amountReceived', { currency: toCurrency })}</span>
          <input inputMode="decimal" value={toAmount} onChange={(e) => setToAmount(e.target.value)} />
        </label>
      )}
      {!details && (
        <button type="button" className="link" onClick={() => setDetails(true)}>
          {w.t('more')}
        </button>
      )}
      {details && (
        <>
          <label className="field">
            <span>{w.t('note')}</span>
            <input value={description} maxLength={1000} onChange={(e) => setDescription(e.target.value)} />
          </label>
          <label className="field">
            <span>{w.t('tags')}</span>
            <input value={tags} onChange={(e) => setTags(e.target.value)} />
          </label>
          <label className="field">
            <span>{w.t('date')}</span>
            <input type="date" value={date} onChange={(e) => setDate(e.target.value)} />
          </label>
        </>
      )}
      {problem && (
        <p className="problem" role="alert">
          {problem}
        </p>
      )}
      <div className="actions">
        {onCancel && (
          <button type="button" className="secondary" onClick={onCancel}>
            {w.t('cancel')}
          </button>
        )}
        {onDelete && (
          <button type="button" className="danger" onClick={onDelete} disabled={readOnly}>
            {w.t('delete')}
          </button>
        )}
        <button type="submit" className="primary" disabled={readOnly || busy || amount === ''}>
          {w.t('save')}
        </button>
      </div>
    </form>
  );
}
