import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { Button, Checkbox, Group, Select, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useTranslation } from 'react-i18next';
import { ApiCallError, call, type ResultOf } from '../../api/client';
import { ErrorNote } from '../../components/common';
import { invalidate, useDataVersion } from '../../lib/data';
import { fromDateInput, useFormat } from '../../lib/format';
import { useAssets, useCategories, type LedgerRecord } from '../../lib/ledger';
import { useDebounced } from '../../lib/use-debounced';
import { EmptyLedger } from './EmptyLedger';
import { RecordEditor } from './RecordEditor';
import { BulkBar } from './BulkBar';
import { type TFn } from './RecordRow';
import { SelectableRow, type RowActions } from './SelectableRow';
import { SELECT_ALL_MAX, useSelection } from './selection';
import { showUndoToast } from './undo-toast';
import { DateField } from '../../components/DateField';
import { Icon } from '../../components/icons';
import { usePhone } from '../../lib/use-phone';
import { MissingRatesNote } from '../../components/MissingRates';

const PAGE_SIZE = 100;
const ROW_HEIGHT = 52;
const PREFETCH_ROWS = 40;

interface Filters {
  from: string;
  to: string;
  type: string | null;
  asset: string | null;
  category: string | null;
  tag: string;
}

const NO_FILTERS: Filters = { from: '', to: '', type: null, asset: null, category: null, tag: '' };
const TIME_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
type QueryResult = ResultOf<'accounting.query'>;

/**
 * Server-paged, virtualised list: only the pages under the visible rows are requested (100 rows a
 * page), and only the visible rows are in the DOM, so 100,000 records scroll like 100.
 */
export function RecordList({ search, onSearch, onSearchError }: { search: string; onSearch: (q: string) => void; onSearchError: (error: ApiCallError | null) => void }) {
  const { t } = useTranslation();
  const f = useFormat();
  const assets = useAssets();
  const categories = useCategories();
  const version = useDataVersion();
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const textFilters = useDebounced({ tag: filters.tag, q: search }, 250);
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
      ...(textFilters.q.trim() ? { q: textFilters.q.trim(), timeZone: TIME_ZONE } : {}),
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
        onSearchError(null);
      } catch (err) {
        if (gen !== generation.current) return;
        // a search the server cannot read is shown under the search box, with no stale results
        if (err instanceof ApiCallError && err.field === 'q') {
          onSearchError(err);
          setMeta(null);
          setPages(new Map());
        } else setError(err as ApiCallError);
      } finally {
        inFlight.current.delete(page);
      }
    },
    [queryKey, onSearchError],
  );

  // New filters or changed data: start over from page 1 (keep showing the old rows meanwhile).
  useEffect(() => {
    generation.current++;
    inFlight.current.clear();
    setPages(new Map());
    void loadPage(1);
  }, [loadPage, version]);

  const scrollRef = useRef<HTMLDivElement>(null);
  const innerRef = useRef<HTMLDivElement>(null);
  const phone = usePhone();
  // On a phone the list is part of the page (<main> scrolls, no box in a box); elsewhere it scrolls in its own viewport.
  const scrollMargin = usePageOffset(innerRef, phone);
  const total = meta?.total ?? 0;
  const virtualizer = useVirtualizer({
    count: total,
    getScrollElement: () => (phone ? document.getElementById('main') : scrollRef.current),
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    scrollMargin: phone ? scrollMargin : 0,
  });
  const offset = phone ? scrollMargin : 0;
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

  const rowAt = useCallback((index: number): LedgerRecord | undefined => pages.get(Math.floor(index / PAGE_SIZE) + 1)?.[index % PAGE_SIZE], [pages]);
  const selection = useSelection(rowAt);
  const clearSelection = selection.clear;
  // new results, new selection: a bulk change never reaches records no longer listed
  useEffect(() => clearSelection(), [queryKey, clearSelection]);
  const actions = useMemo<RowActions>(
    () => ({
      onToggle: selection.toggle,
      onOpen: setEditing,
      onDuplicate: (record) => {
        call('accounting.duplicate', { id: record.id }).then(
          (copy) => {
            invalidate();
            notifications.show({ color: 'teal', message: t('search.duplicated') });
            setEditing(copy);
          },
          (err: unknown) => setError(err as ApiCallError),
        );
      },
      onDelete: (record) => {
        call('accounting.delete', { id: record.id }).then(
          (answer) => {
            invalidate();
            showUndoToast(t('records.deleted'), answer.undoToken);
          },
          (err: unknown) => setError(err as ApiCallError),
        );
      },
    }),
    [selection.toggle, t],
  );
  const allSelected = total > 0 && selection.selected.size >= Math.min(total, SELECT_ALL_MAX);
  const set = (patch: Partial<Filters>) => setFilters((prev) => ({ ...prev, ...patch }));
  const allCategories = useMemo(() => [...new Set(categories.list.map((c) => c.name))], [categories.list]);
  const currency = meta?.totals.currency ?? assets.baseCurrency;

  const [filtersOpen, setFiltersOpen] = useState(false);
  const activeFilters = Object.values(filters).filter((value) => value !== null && value !== '').length;
  const filterPanel = (
    <div className="pp-filters" id="record-filters" role="search" aria-label={t('records.filters')}>
      <DateField size="xs" w={140} clearable label={t('records.from')} value={filters.from} onChange={(from) => set({ from })} />
      <DateField size="xs" w={140} clearable label={t('records.to')} value={filters.to} onChange={(to) => set({ to })} />
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
      <Select
        size="xs"
        label={t('records.asset')}
        placeholder={t('records.any')}
        clearable
        searchable
        value={filters.asset}
        onChange={(v) => set({ asset: v })}
        data={assets.list.map((a) => ({ value: a.id, label: a.name }))}
      />
      <Select
        size="xs"
        label={t('records.category')}
        placeholder={t('records.any')}
        clearable
        searchable
        value={filters.category}
        onChange={(v) => set({ category: v })}
        data={allCategories}
      />
      <TextInput size="xs" label={t('records.tag')} value={filters.tag} onChange={(e) => set({ tag: e.currentTarget.value })} />
      <Button
        size="xs"
        variant="subtle"
        onClick={() => {
          setFilters(NO_FILTERS);
          onSearch('');
        }}
        disabled={JSON.stringify(filters) === JSON.stringify(NO_FILTERS) && search === ''}
      >
        {t('records.clearFilters')}
      </Button>
    </div>
  );

  return (
    <section className="pp-card" aria-label={t('records.list')}>
      {!phone && filterPanel}
      <div className="pp-list-top">
        {phone && (
          <Button
            variant={activeFilters ? 'light' : 'default'}
            size="xs"
            leftSection={<Icon name="filter" size={14} />}
            aria-expanded={filtersOpen}
            aria-controls="record-filters"
            onClick={() => setFiltersOpen((open) => !open)}
          >
            {activeFilters ? t('records.filtersActive', { count: activeFilters }) : t('records.showFilters')}
          </Button>
        )}
        <Group gap="lg" aria-live="polite" data-testid="record-totals">
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
      </div>
      {phone && filtersOpen && filterPanel}
      {meta && <MissingRatesNote missing={meta.totals.missingRates} />}
      <ErrorNote error={error} onRetry={() => void loadPage(1)} />
      {selection.list.length > 0 && <BulkBar selected={selection.list} onClear={selection.clear} />}
      <div className="pp-select-row pp-select-head">
        <Checkbox
          size="xs"
          aria-label={total > SELECT_ALL_MAX ? t('search.selectFirst', { count: SELECT_ALL_MAX }) : t('search.selectAll', { count: total })}
          checked={allSelected}
          indeterminate={!allSelected && selection.selected.size > 0}
          disabled={total === 0}
          onChange={() => (selection.selected.size > 0 ? selection.clear() : void selection.selectAll(query, total).catch((err: unknown) => setError(err as ApiCallError)))}
        />
        <div className="pp-row pp-row-head" aria-hidden="true">
          <span>{t('records.date')}</span>
          <span>{t('records.description')}</span>
          <span>{t('records.asset')}</span>
          <span>{t('records.tags')}</span>
          <span className="pp-cell-amount">{t('records.amount')}</span>
        </div>
        <span />
      </div>
      <div ref={scrollRef} className="pp-list-viewport" data-testid="record-list">
        {meta && total === 0 && (
          <EmptyLedger
            filtered={Object.values(query).some((v) => v !== undefined)}
            onClear={() => {
              setFilters(NO_FILTERS);
              onSearch('');
            }}
          />
        )}
        <div ref={innerRef} className="pp-list-inner" role="list" aria-label={t('records.list')} style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const record = rowAt(item.index);
            return (
              <div
                key={item.key}
                role="listitem"
                className="pp-row-slot"
                style={{ transform: `translateY(${item.start - offset}px)` }}
                aria-setsize={total}
                aria-posinset={item.index + 1}
              >
                <SelectableRow record={record} index={item.index} selected={record ? selection.selected.has(record.id) : false} actions={actions} f={f} t={t as TFn} />
              </div>
            );
          })}
        </div>
      </div>
      {editing && <RecordEditor record={editing} onClose={() => setEditing(null)} />}
    </section>
  );
}

/**
 * Where `ref`'s element starts inside <main>'s scrolled content (the virtualiser's scrollMargin
 * when <main> is the scroll element), measured again whenever the page above it changes size.
 */
function usePageOffset(ref: React.RefObject<HTMLElement | null>, active: boolean): number {
  const [offset, setOffset] = useState(0);
  useLayoutEffect(() => {
    const element = ref.current;
    const main = document.getElementById('main');
    if (!active || !element || !main) return;
    const measure = () => setOffset(Math.round(element.getBoundingClientRect().top - main.getBoundingClientRect().top + main.scrollTop));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(main.firstElementChild ?? main);
    return () => observer.disconnect();
  }, [ref, active]);
  return offset;
}
