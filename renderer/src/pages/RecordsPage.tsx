import { memo, useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { Alert, Button, Group, Modal, SegmentedControl, Select, Stack, TagsInput, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useTranslation } from 'react-i18next';
import { ApiCallError, call, type ParamsOf, type ResultOf } from '../api/client';
import { ErrorNote, PageHeader } from '../components/common';
import { AttachmentPicker, type PickedFile } from '../components/AttachmentPicker';
import { AttachmentPreview } from '../components/AttachmentPreview';
import { Icon } from '../components/icons';
import { checkFields, NumberField, useNumberField } from '../components/NumberField';
import { useAction, useDataVersion } from '../lib/data';
import { useErrorText } from '../lib/errors';
import { numberText } from '../lib/parse-number';
import { currencyDigits, fromDateInput, startOfDay, toDateInput, useFormat } from '../lib/format';
import { lastCategory, rememberCategory, useAssets, useCategories, type LedgerRecord, type RecordType } from '../lib/ledger';
import { navigate, useSearchParam } from '../lib/router';

const PAGE_SIZE = 100;
const ROW_HEIGHT = 52;
const PREFETCH_ROWS = 40;

/** A record's date: now for today (keeps the order of the day), local noon for another day. */
function dateValue(input: string): number {
  const day = fromDateInput(input) ?? startOfDay(Date.now());
  if (day === startOfDay(Date.now())) return Date.now();
  return day + 12 * 3600_000;
}

export default function RecordsPage() {
  const { t } = useTranslation();
  const preset = useSearchParam('new');
  return (
    <div className="pp-page">
      <PageHeader title={t('records.title')} />
      <EntryForm preset={preset === 'income' || preset === 'expense' || preset === 'transfer' ? preset : null} />
      <RecordList />
    </div>
  );
}

/* ------------------------------------------------------------------ fast entry */

function EntryForm({ preset }: { preset: RecordType | null }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const assets = useAssets();
  const categories = useCategories();
  const [type, setType] = useState<RecordType>(preset ?? 'expense');
  const [asset, setAsset] = useState<string | null>(null);
  const [toAsset, setToAsset] = useState<string | null>(null);
  const [category, setCategory] = useState<string | null>(null);
  const [date, setDate] = useState(toDateInput(Date.now()));
  const [description, setDescription] = useState('');
  const [tags, setTags] = useState<string[]>([]);
  const [files, setFiles] = useState<PickedFile[]>([]);
  const { run, busy, error, setError } = useAction();

  useEffect(() => {
    if (preset) {
      setType(preset);
      amountRef.current?.focus();
      navigate('/records', { replace: true });
    }
  }, [preset]);
  // Sensible defaults: the default asset, the last category of this type.
  useEffect(() => {
    if (!asset && assets.defaultAsset) setAsset(assets.defaultAsset.id);
  }, [asset, assets.defaultAsset]);
  const typeCategories = type === 'income' ? categories.income : categories.expense;
  useEffect(() => {
    if (type === 'transfer') return;
    const remembered = lastCategory(type);
    const names = typeCategories.map((c) => c.name);
    if (category && names.includes(category)) return;
    setCategory(remembered && names.includes(remembered) ? remembered : (names[0] ?? null));
  }, [type, typeCategories, category]);

  const from = asset ? assets.byId.get(asset) : undefined;
  const to = toAsset ? assets.byId.get(toAsset) : undefined;
  const crossCurrency = type === 'transfer' && from && to && from.currency !== to.currency;
  const fromCurrency = from?.currency ?? assets.baseCurrency;
  const toCurrency = to?.currency ?? fromCurrency;
  const amount = useNumberField({ kind: 'money', currency: fromCurrency, decimals: currencyDigits(fromCurrency), sign: 'positive' });
  const fee = useNumberField({ kind: 'money', currency: fromCurrency, decimals: currencyDigits(fromCurrency), sign: 'nonNegative', optional: true });
  const toAmount = useNumberField({ kind: 'money', currency: toCurrency, decimals: currencyDigits(toCurrency), sign: 'positive', optional: true });
  const amountRef = amount.ref;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    if (!asset) return;
    if (!checkFields(amount, ...(type === 'transfer' ? [fee, ...(crossCurrency ? [toAmount] : [])] : []))) return;
    const common = { amount: amount.value ?? 0, description: description.trim() || undefined, date: dateValue(date), tags: tags.length ? tags : undefined };
    const params: ParamsOf<'accounting.create'> =
      type === 'transfer'
        ? {
            type,
            ...common,
            fromAsset: asset,
            toAsset: toAsset ?? undefined,
            fee: fee.value ?? undefined,
            toAmount: crossCurrency ? (toAmount.value ?? undefined) : undefined,
            attachments: files.length ? files.map((f) => f.fileId) : undefined,
          }
        : { type, ...common, asset, category: category ?? undefined, attachments: files.length ? files.map((f) => f.fileId) : undefined };
    const saved = await run(() => call('accounting.create', params));
    if (!saved) return;
    if (type !== 'transfer' && category) rememberCategory(type, category);
    notifications.show({ color: 'teal', message: t('records.saved') });
    amount.reset();
    setDescription('');
    setTags([]);
    setFiles([]);
    fee.reset();
    toAmount.reset();
    amountRef.current?.focus();
  };

  const fieldErr = (name: string) => (error && error.field === name ? errorText(error) : null);
  const amountError = fieldErr('amount') ?? (error && (error.code === 3003 || error.code === 2002) ? errorText(error) : null);
  const general = error && !amountError && !['asset', 'fromAsset', 'toAsset', 'fee', 'toAmount', 'category', 'description', 'date', 'tags'].includes(error.field ?? '') ? errorText(error) : null;
  const assetOptions = assets.active.map((a) => ({ value: a.id, label: `${a.name} (${a.currency})` }));

  if (assets.data && assets.list.length === 0) {
    return (
      <Alert color="teal" mb="md">
        <Group justify="space-between">
          <span>{t('records.needAsset')}</span>
          <Button size="xs" onClick={() => navigate('/assets?new=1')}>
            {t('dashboard.createAsset')}
          </Button>
        </Group>
      </Alert>
    );
  }

  return (
    <form className="pp-card" onSubmit={submit} aria-label={t('records.newRecord')} style={{ marginBottom: 16 }}>
      <Group justify="space-between" mb="sm">
        <SegmentedControl
          value={type}
          onChange={(v) => {
            setType(v as RecordType);
            setError(null);
          }}
          data={[
            { value: 'expense', label: t('common.expense') },
            { value: 'income', label: t('common.income') },
            { value: 'transfer', label: t('common.transfer') },
          ]}
          aria-label={t('records.type')}
        />
        <Text size="xs" c="dimmed">
          {t('records.enterHint')}
        </Text>
      </Group>
      <div className="pp-entry">
        <NumberField field={amount} label={t('records.amount')} required autoFocus error={amountError} />
        <Select label={type === 'transfer' ? t('records.fromAsset') : t('records.asset')} data={assetOptions} value={asset} onChange={setAsset} allowDeselect={false} error={fieldErr('asset') ?? fieldErr('fromAsset')} required searchable />
        {type === 'transfer' ? (
          <Select label={t('records.toAsset')} data={assetOptions.filter((o) => o.value !== asset)} value={toAsset} onChange={setToAsset} error={fieldErr('toAsset')} required searchable />
        ) : (
          <Select label={t('records.category')} data={typeCategories.map((c) => c.name)} value={category} onChange={setCategory} allowDeselect={false} error={fieldErr('category')} searchable />
        )}
        <TextInput label={t('records.date')} type="date" value={date} onChange={(e) => setDate(e.currentTarget.value)} required error={fieldErr('date')} />
        <Button type="submit" loading={busy} disabled={amount.text.trim() === '' || !asset || (type === 'transfer' && !toAsset)}>
          {t('records.save')}
        </Button>
        {type === 'transfer' && (
          <>
            <NumberField field={fee} label={t('records.fee')} error={fieldErr('fee')} />
            {crossCurrency ? (
              <NumberField field={toAmount} label={t('records.toAmount', { currency: to?.currency })} error={fieldErr('toAmount')} />
            ) : (
              <div />
            )}
          </>
        )}
        <TextInput className={type === 'transfer' ? '' : 'pp-entry-wide'} label={t('records.description')} value={description} onChange={(e) => setDescription(e.currentTarget.value)} maxLength={1000} error={fieldErr('description')} />
        <TagsInput className={type === 'transfer' ? '' : 'pp-entry-wide'} label={t('records.tags')} value={tags} onChange={setTags} maxTags={20} splitChars={[',', ' ']} clearable error={fieldErr('tags')} />
        <div />
      </div>
      <Group mt="sm" justify="space-between" align="flex-start">
        <AttachmentPicker files={files} onChange={setFiles} />
        {general && (
          <Text c="red" size="sm" role="alert">
            {general}
          </Text>
        )}
      </Group>
    </form>
  );
}

/* ------------------------------------------------------------------ list */

interface Filters {
  from: string;
  to: string;
  type: string | null;
  asset: string | null;
  category: string | null;
  tag: string;
  text: string;
}
const NO_FILTERS: Filters = { from: '', to: '', type: null, asset: null, category: null, tag: '', text: '' };

function useDebounced<T>(value: T, ms: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => setDebounced(value), ms);
    return () => window.clearTimeout(timer);
  }, [value, ms]);
  return debounced;
}

type QueryResult = ResultOf<'accounting.query'>;

/**
 * Server-paged, virtualised list: only the pages under the visible rows are requested (100 rows a
 * page), and only the visible rows are in the DOM, so 100,000 records scroll like 100.
 */
function RecordList() {
  const { t } = useTranslation();
  const f = useFormat();
  const assets = useAssets();
  const categories = useCategories();
  const version = useDataVersion();
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const textFilters = useDebounced({ tag: filters.tag, text: filters.text }, 300);
  const [editing, setEditing] = useState<LedgerRecord | null>(null);

  const query = useMemo(() => {
    const startDate = fromDateInput(filters.from);
    const endDay = fromDateInput(filters.to);
    return {
      type: filters.type ?? undefined,
      asset: filters.asset ?? undefined,
      category: filters.category ?? undefined,
      startDate: startDate ?? undefined,
      endDate: endDay === null ? undefined : endDay + 86_400_000,
      tag: textFilters.tag.trim() || undefined,
      text: textFilters.text.trim() || undefined,
    };
  }, [filters.type, filters.asset, filters.category, filters.from, filters.to, textFilters]);
  const queryKey = JSON.stringify(query);

  const [pages, setPages] = useState<Map<number, LedgerRecord[]>>(new Map());
  const [meta, setMeta] = useState<{ total: number; totals: QueryResult['totals'] } | null>(null);
  const [error, setError] = useState<ApiCallError | null>(null);
  const inFlight = useRef(new Set<number>());
  const generation = useRef(0);

  const loadPage = useCallback(
    async (page: number) => {
      if (inFlight.current.has(page)) return;
      inFlight.current.add(page);
      const gen = generation.current;
      try {
        const result = await call('accounting.query', { ...(JSON.parse(queryKey) as object), page, pageSize: PAGE_SIZE });
        if (gen !== generation.current) return;
        setPages((prev) => new Map(prev).set(page, result.list));
        setMeta({ total: result.total, totals: result.totals });
        setError(null);
      } catch (err) {
        if (gen === generation.current) setError(err as ApiCallError);
      } finally {
        inFlight.current.delete(page);
      }
    },
    [queryKey],
  );

  // New filters or changed data: start over from page 1 (keep showing the old rows meanwhile).
  useEffect(() => {
    generation.current++;
    inFlight.current.clear();
    setPages(new Map());
    void loadPage(1);
  }, [loadPage, version]);

  const scrollRef = useRef<HTMLDivElement>(null);
  const total = meta?.total ?? 0;
  const virtualizer = useVirtualizer({ count: total, getScrollElement: () => scrollRef.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
  const items = virtualizer.getVirtualItems();
  const firstIndex = items[0]?.index ?? 0;
  const lastIndex = items[items.length - 1]?.index ?? 0;
  useEffect(() => {
    if (!total) return;
    // one screenful ahead and behind, so crossing a page boundary shows no placeholders
    const firstPage = Math.floor(Math.max(0, firstIndex - PREFETCH_ROWS) / PAGE_SIZE) + 1;
    const lastPage = Math.floor(Math.min(total - 1, lastIndex + PREFETCH_ROWS) / PAGE_SIZE) + 1;
    for (let page = firstPage; page <= lastPage; page++) if (!pages.has(page)) void loadPage(page);
  }, [firstIndex, lastIndex, total, pages, loadPage]);

  const rowAt = (index: number): LedgerRecord | undefined => pages.get(Math.floor(index / PAGE_SIZE) + 1)?.[index % PAGE_SIZE];
  const set = (patch: Partial<Filters>) => setFilters((prev) => ({ ...prev, ...patch }));
  const allCategories = useMemo(() => [...new Set(categories.list.map((c) => c.name))], [categories.list]);
  const currency = meta?.totals.currency ?? assets.baseCurrency;

  return (
    <section className="pp-card" aria-label={t('records.list')}>
      <div className="pp-filters" role="search" aria-label={t('records.filters')}>
        <TextInput size="xs" type="date" label={t('records.from')} value={filters.from} onChange={(e) => set({ from: e.currentTarget.value })} />
        <TextInput size="xs" type="date" label={t('records.to')} value={filters.to} onChange={(e) => set({ to: e.currentTarget.value })} />
        <Select
          size="xs"
          label={t('records.type')}
          placeholder={t('records.any')}
          clearable
          value={filters.type}
          onChange={(v) => set({ type: v })}
          data={[
            { value: 'expense', label: t('common.expense') },
            { value: 'income', label: t('common.income') },
            { value: 'transfer', label: t('common.transfer') },
          ]}
        />
        <Select size="xs" label={t('records.asset')} placeholder={t('records.any')} clearable searchable value={filters.asset} onChange={(v) => set({ asset: v })} data={assets.list.map((a) => ({ value: a.id, label: a.name }))} />
        <Select size="xs" label={t('records.category')} placeholder={t('records.any')} clearable searchable value={filters.category} onChange={(v) => set({ category: v })} data={allCategories} />
        <TextInput size="xs" label={t('records.tag')} value={filters.tag} onChange={(e) => set({ tag: e.currentTarget.value })} />
        <TextInput size="xs" label={t('records.search')} type="search" value={filters.text} onChange={(e) => set({ text: e.currentTarget.value })} />
        <Button size="xs" variant="subtle" onClick={() => setFilters(NO_FILTERS)} disabled={JSON.stringify(filters) === JSON.stringify(NO_FILTERS)}>
          {t('records.clearFilters')}
        </Button>
      </div>
      <Group gap="lg" my="sm" aria-live="polite" data-testid="record-totals">
        <Text size="sm">{t('records.count', { count: total, formatted: f.number(total) })}</Text>
        {meta && (
          <>
            <Text size="sm">
              {t('common.income')}: <span className="pp-num pp-income">{f.money(meta.totals.income, currency)}</span>
            </Text>
            <Text size="sm">
              {t('common.expense')}: <span className="pp-num pp-expense">{f.money(meta.totals.expense, currency)}</span>
            </Text>
            <Text size="sm">
              {t('common.net')}: <span className="pp-num">{f.money(meta.totals.net, currency, { sign: true })}</span>
            </Text>
          </>
        )}
      </Group>
      <ErrorNote error={error} onRetry={() => void loadPage(1)} />
      <div className="pp-row pp-row-head" aria-hidden="true">
        <span>{t('records.date')}</span>
        <span>{t('records.description')}</span>
        <span>{t('records.asset')}</span>
        <span>{t('records.tags')}</span>
        <span className="pp-cell-amount">{t('records.amount')}</span>
      </div>
      <div ref={scrollRef} className="pp-list-viewport" data-testid="record-list">
        {meta && total === 0 && <div className="pp-empty">{t('records.none')}</div>}
        <div className="pp-list-inner" role="list" aria-label={t('records.list')} aria-rowcount={total} style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const record = rowAt(item.index);
            return (
              <div key={item.key} role="listitem" className="pp-row-slot" style={{ transform: `translateY(${item.start}px)` }} aria-setsize={total} aria-posinset={item.index + 1}>
                {record ? <RecordRow record={record} onOpen={setEditing} f={f} t={t as TFn} /> : <PlaceholderRow />}
              </div>
            );
          })}
        </div>
      </div>
      {editing && <RecordEditor record={editing} onClose={() => setEditing(null)} />}
    </section>
  );
}

function PlaceholderRow() {
  return (
    <div className="pp-row" aria-busy="true">
      <div className="pp-row-placeholder" />
      <div className="pp-row-placeholder" />
      <div className="pp-row-placeholder" />
      <div className="pp-row-placeholder" />
      <div className="pp-row-placeholder" />
    </div>
  );
}

type Fmt = ReturnType<typeof useFormat>;
/** Loosely typed on purpose: the fully typed TFunction as a prop exceeds TypeScript's instantiation depth as the strings grow. */
type TFn = (key: string, options?: Record<string, unknown>) => string;

/** One row: plain elements (no per-row hooks), memoised, so scrolling renders only what is new. */
const RecordRow = memo(function RecordRow({ record, onOpen, f, t }: { record: LedgerRecord; onOpen: (record: LedgerRecord) => void; f: Fmt; t: TFn }) {
  const title = record.description || (record.type === 'transfer' ? t('common.transfer') : record.category);
  const sub =
    record.type === 'transfer'
      ? [record.description ? t('common.transfer') : '', record.fee ? t('records.feeOf', { fee: f.money(record.fee, record.currency) }) : ''].filter(Boolean).join(' · ')
      : record.description
        ? record.category
        : '';
  const date = f.date(record.date);
  const signed = record.type === 'expense' ? -record.amount : record.amount;
  const amount = f.money(signed, record.currency, { sign: record.type !== 'transfer' });
  const tone = record.type === 'income' ? 'pp-income' : record.type === 'expense' ? 'pp-expense' : 'pp-transfer';
  return (
    <button type="button" className="pp-row" onClick={() => onOpen(record)} aria-label={t('records.rowLabel', { date, what: title, amount }) + (record.attachments.length ? t('records.hasAttachments') : '')}>
      <span className="pp-cell pp-num">{date}</span>
      <span className="pp-cell">
        <span className="pp-row-title">
          {title}
          {record.attachments.length > 0 && <Icon name="paperclip" size={13} className="pp-inline-icon" />}
        </span>
        <span className="pp-row-sub">{sub}</span>
      </span>
      <span className="pp-cell">{record.type === 'transfer' ? `${record.assetName} → ${record.toAssetName ?? ''}` : record.assetName}</span>
      <span className="pp-cell pp-row-sub">{record.tags.map((tag) => `#${tag}`).join(' ')}</span>
      <span className={`pp-cell pp-cell-amount ${tone}`}>{amount}</span>
    </button>
  );
});

/* ------------------------------------------------------------------ edit / delete */

function RecordEditor({ record, onClose }: { record: LedgerRecord; onClose: () => void }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const assets = useAssets();
  const categories = useCategories();
  const [detail, setDetail] = useState<ResultOf<'accounting.get'> | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [date, setDate] = useState(toDateInput(record.date));
  const [category, setCategory] = useState<string | null>(record.category);
  const [asset, setAsset] = useState<string | null>(record.asset);
  const [toAsset, setToAsset] = useState<string | null>(record.toAsset ?? null);
  const [description, setDescription] = useState(record.description);
  const [tags, setTags] = useState<string[]>(record.tags);
  const [files, setFiles] = useState<PickedFile[]>([]);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const save = useAction();
  const remove = useAction();

  useEffect(() => {
    call('accounting.get', { id: record.id }).then(
      (d) => {
        setDetail(d);
        setFiles(d.attachmentDetails.map((a) => ({ fileId: a.fileId, name: a.fileName ?? a.fileId })));
      },
      setLoadError,
    );
  }, [record.id]);

  const typeCategories = record.type === 'income' ? categories.income : categories.expense;
  const digits = currencyDigits(record.currency);
  const amount = useNumberField({ kind: 'money', currency: record.currency, decimals: digits, sign: 'positive' }, numberText(record.amount));
  const fee = useNumberField({ kind: 'money', currency: record.currency, decimals: digits, sign: 'nonNegative', optional: true }, numberText(record.fee));
  const onSave = async (event: FormEvent) => {
    event.preventDefault();
    if (!checkFields(amount, ...(record.type === 'transfer' ? [fee] : []))) return;
    const originalDay = toDateInput(record.date);
    const patch: ParamsOf<'accounting.update'> = {
      id: record.id,
      amount: amount.value ?? 0,
      description,
      tags,
      attachments: files.map((f) => f.fileId),
      expectedUpdatedAt: detail?.updatedAt ?? record.updatedAt,
      ...(date !== originalDay ? { date: dateValue(date) } : {}),
      ...(record.type === 'transfer'
        ? { fromAsset: asset ?? undefined, toAsset: toAsset ?? undefined, fee: fee.value ?? 0 }
        : { asset: asset ?? undefined, category: category ?? undefined }),
    };
    const ok = await save.run(() => call('accounting.update', patch));
    if (ok) {
      notifications.show({ color: 'teal', message: t('records.updated') });
      onClose();
    }
  };
  const onDelete = async () => {
    const ok = await remove.run(() => call('accounting.delete', { id: record.id }));
    if (ok) {
      notifications.show({ color: 'teal', message: t('records.deleted') });
      onClose();
    }
  };
  const assetOptions = assets.list.map((a) => ({ value: a.id, label: `${a.name} (${a.currency})` }));
  const err = save.error;
  const fieldErr = (name: string) => (err && err.field === name ? errorText(err) : null);
  const amountError = fieldErr('amount') ?? (err && (err.code === 3003 || err.code === 2002) ? errorText(err) : null);
  const general = err && !amountError && !err.field ? (err.code === 409 ? t('records.staleEdit') : errorText(err)) : null;

  return (
    <Modal opened onClose={onClose} title={t('records.editTitle', { type: t(`common.${record.type}`) })} size="lg">
      <form onSubmit={onSave}>
        <Stack gap="sm">
          <Group grow align="flex-start">
            <NumberField field={amount} label={t('records.amount')} required error={amountError} data-autofocus />
            <TextInput label={t('records.date')} type="date" value={date} onChange={(e) => setDate(e.currentTarget.value)} required />
          </Group>
          <Group grow align="flex-start">
            <Select label={record.type === 'transfer' ? t('records.fromAsset') : t('records.asset')} data={assetOptions} value={asset} onChange={setAsset} allowDeselect={false} error={fieldErr('asset') ?? fieldErr('fromAsset')} />
            {record.type === 'transfer' ? (
              <Select label={t('records.toAsset')} data={assetOptions} value={toAsset} onChange={setToAsset} allowDeselect={false} error={fieldErr('toAsset')} />
            ) : (
              <Select label={t('records.category')} data={[...new Set([record.category, ...typeCategories.map((c) => c.name)])]} value={category} onChange={setCategory} allowDeselect={false} error={fieldErr('category')} />
            )}
          </Group>
          {record.type === 'transfer' && <NumberField field={fee} label={t('records.fee')} error={fieldErr('fee')} />}
          <TextInput label={t('records.description')} value={description} onChange={(e) => setDescription(e.currentTarget.value)} maxLength={1000} />
          <TagsInput label={t('records.tags')} value={tags} onChange={setTags} maxTags={20} splitChars={[',', ' ']} clearable />
          <div>
            <Text size="sm" fw={500} mb={4}>
              {t('records.attachments')}
            </Text>
            {loadError !== null && <ErrorNote error={loadError} />}
            {detail && detail.attachmentDetails.length > 0 && (
              <Group gap="sm" mb="xs">
                {detail.attachmentDetails
                  .filter((a) => files.some((f) => f.fileId === a.fileId))
                  .map((a) => (
                    <AttachmentPreview key={a.fileId} attachment={a} />
                  ))}
              </Group>
            )}
            <AttachmentPicker files={files} onChange={setFiles} />
          </div>
          {general && (
            <Alert color="red" role="alert">
              {general}
            </Alert>
          )}
          {confirmDelete ? (
            <Alert color="red" title={t('records.confirmDeleteTitle')}>
              <Text size="sm" mb="sm">
                {t('records.confirmDeleteText')}
              </Text>
              {remove.error && (
                <Text size="sm" c="red" role="alert" mb="sm">
                  {errorText(remove.error)}
                </Text>
              )}
              <Group>
                <Button color="red" onClick={() => void onDelete()} loading={remove.busy}>
                  {t('records.confirmDelete')}
                </Button>
                <Button variant="default" onClick={() => setConfirmDelete(false)}>
                  {t('common.cancel')}
                </Button>
              </Group>
            </Alert>
          ) : (
            <Group justify="space-between">
              <Button color="red" variant="subtle" onClick={() => setConfirmDelete(true)}>
                {t('records.delete')}
              </Button>
              <Group>
                <Button variant="default" onClick={onClose}>
                  {t('common.cancel')}
                </Button>
                <Button type="submit" loading={save.busy}>
                  {t('common.save')}
                </Button>
              </Group>
            </Group>
          )}
        </Stack>
      </form>
    </Modal>
  );
}

