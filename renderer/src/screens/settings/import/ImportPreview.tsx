import { useMemo, useState } from 'react';
import { Alert, Button, Group, Select, Stack, Tabs, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useFormat } from '../../../lib/format';
import { useAssets, useCategories } from '../../../lib/ledger';
import { InvalidTable, LinesTable } from './PreviewTables';
import type { DateOrder, LineOverride, PreviewLine, PreviewResult } from './types';

/** Lines listed per tab by import.preview (the counts are complete). */
const PREVIEW_LIST = 200;

type Section = 'create' | 'likely' | 'duplicate' | 'skipped' | 'invalid';

/** The changes the person made to the preview, by line. */
export interface Choices {
  /** Lines to create that are left out. */
  leftOut: Set<number>;
  /** Likely duplicates imported anyway. */
  anyway: Set<number>;
  /** Moves between one's own accounts included as transfers: line → the other asset. */
  transfers: Map<number, string>;
  /** Another category for a line to create. */
  categories: Map<number, string>;
}

/** The overrides import.commit takes for these choices. */
export function overridesOf(choices: Choices): LineOverride[] {
  const byLine = new Map<number, LineOverride>();
  const add = (line: number, change: Omit<LineOverride, 'line'>) => byLine.set(line, { ...byLine.get(line), line, ...change });
  for (const line of choices.leftOut) add(line, { include: false });
  for (const line of choices.anyway) add(line, { include: true });
  for (const [line, toAsset] of choices.transfers) add(line, { include: true, toAsset });
  for (const [line, category] of choices.categories) if (!choices.leftOut.has(line)) add(line, { category });
  return [...byLine.values()].sort((a, b) => a.line - b.line);
}

/**
 * Step 3: what the import would do, line by line, before anything is written. The counts, then a
 * tab per outcome: lines to create (each can be left out or given another category), likely
 * duplicates (import anyway), lines imported before, skipped lines with the reason (a move between
 * one's own accounts can be included as a transfer) and lines that cannot be read.
 */
export function ImportPreview({
  preview,
  fileName,
  assetId,
  busy,
  onCommit,
  onUseAsset,
  onDateOrder,
  onBack,
  onCancel,
}: {
  preview: PreviewResult;
  fileName: string;
  /** The asset chosen for the file (lines of another card of yours name theirs). */
  assetId: string;
  busy: boolean;
  onCommit: (overrides: LineOverride[]) => void;
  /** Preview the file again into another asset (the one its source belongs to). */
  onUseAsset: (id: string) => void;
  /** Preview the file again with its dates read in another order (QIF). */
  onDateOrder: (order: DateOrder) => void;
  onBack: () => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const f = useFormat();
  const assets = useAssets();
  const categories = useCategories();
  const summary = preview.summary;
  const likely = useMemo(() => preview.duplicates.filter((l) => l.matchId !== undefined), [preview]);
  const before = useMemo(() => preview.duplicates.filter((l) => l.matchId === undefined), [preview]);
  // The counts are complete; each list holds at most the first 200 lines of its kind.
  const counts: Record<Section, number> = {
    create: summary.create,
    likely: summary.likelyDuplicate,
    duplicate: summary.duplicate,
    skipped: summary.skipped,
    invalid: summary.invalid,
  };
  const capped =
    counts.create > preview.create.length ||
    counts.likely > likely.length ||
    counts.duplicate > before.length ||
    counts.skipped > preview.skipped.length ||
    counts.invalid > preview.invalid.length;
  const first = (['create', 'likely', 'skipped', 'duplicate', 'invalid'] as const).find((s) => counts[s] > 0) ?? 'create';
  const [section, setSection] = useState<Section>(first);
  const [choices, setChoices] = useState<Choices>({ leftOut: new Set(), anyway: new Set(), transfers: new Map(), categories: new Map() });
  const toggle = (key: 'leftOut' | 'anyway', line: number, on: boolean) =>
    setChoices((c) => {
      const next = new Set(c[key]);
      if (on) next.add(line);
      else next.delete(line);
      return { ...c, [key]: next };
    });
  const setIn = (key: 'transfers' | 'categories', line: number, value: string | null) =>
    setChoices((c) => {
      const next = new Map(c[key]);
      if (value) next.set(line, value);
      else next.delete(line);
      return { ...c, [key]: next };
    });
  const toImport = summary.create - choices.leftOut.size + choices.anyway.size + choices.transfers.size;
  // A transfer goes to another asset in the same currency (else its received amount is needed: recorded by hand).
  const transferTargets = (line: PreviewLine) =>
    assets.active.filter((a) => a.id !== line.asset && a.currency === line.currency).map((a) => ({ value: a.id, label: `${a.name} (${a.currency})` }));
  const categoryOptions = (type: string) => (type === 'income' ? categories.income : categories.expense).map((c) => ({ value: c.name, label: c.name }));

  return (
    <Stack gap="sm" data-testid="statement-preview">
      <Title order={3} size="h6">
        {t('imports.preview.title', { name: fileName })}
      </Title>
      <Text size="sm" data-testid="statement-summary">
        {t('imports.preview.summary', {
          lines: t('imports.preview.counts.lines', { count: summary.lines, n: f.number(summary.lines) }),
          parts: (
            [
              ['create', summary.create],
              ['likely', summary.likelyDuplicate],
              ['duplicate', summary.duplicate],
              ['skipped', summary.skipped],
              ['invalid', summary.invalid],
            ] as const
          )
            .map(([key, count]) => t(`imports.preview.counts.${key}`, { count, n: f.number(count) }))
            .join(t('imports.preview.counts.separator')),
        })}
      </Text>
      {summary.suggestedAsset && (
        <Alert color="yellow" role="status" data-testid="statement-suggested-asset">
          <Text size="sm">{t('imports.preview.otherAsset', { format: t(`imports.formats.${summary.format}`), name: summary.suggestedAsset.name })}</Text>
          <Button size="xs" mt="xs" variant="light" onClick={() => onUseAsset(summary.suggestedAsset?.id ?? '')} loading={busy}>
            {t('imports.useAsset', { name: summary.suggestedAsset.name })}
          </Button>
        </Alert>
      )}
      {summary.dateOrder && (
        <Alert color="yellow" role="status" data-testid="statement-date-order">
          <Text size="sm">{t('imports.preview.dateOrderAmbiguous')}</Text>
          <Select
            mt="xs"
            maw={320}
            label={t('imports.preview.dateOrder')}
            data={summary.dateOrder.possible.map((order) => ({ value: order, label: t(`imports.preview.dateOrders.${order}`) }))}
            value={summary.dateOrder.used}
            onChange={(v) => v && v !== summary.dateOrder?.used && onDateOrder(v)}
            allowDeselect={false}
          />
        </Alert>
      )}
      {(summary.account || summary.ruled > 0 || summary.newCategories.length > 0) && (
        <Text size="xs" c="dimmed">
          {[
            summary.account ? t('imports.preview.account', { account: summary.account }) : '',
            summary.ruled > 0 ? t('imports.preview.ruled', { count: summary.ruled }) : '',
            summary.newCategories.length > 0 ? t('imports.preview.newCategories', { names: summary.newCategories.map((c) => c.name).join(', ') }) : '',
          ]
            .filter(Boolean)
            .join(' · ')}
        </Text>
      )}
      {capped && (
        <Text size="xs" c="dimmed">
          {t('imports.preview.capped', { limit: PREVIEW_LIST })}
        </Text>
      )}
      {summary.create === 0 && summary.likelyDuplicate === 0 && (
        <Alert color="gray" role="status" data-testid="statement-nothing">
          {before.length > 0 ? t('imports.preview.allImported') : t('imports.preview.nothing')}
        </Alert>
      )}
      <Tabs value={section} onChange={(v) => v && setSection(v as Section)} keepMounted={false}>
        <Tabs.List>
          {(['create', 'likely', 'duplicate', 'skipped', 'invalid'] as const).map((s) => (
            <Tabs.Tab key={s} value={s}>
              {t(`imports.preview.tabs.${s}`, { n: counts[s] })}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        <Tabs.Panel value="create" pt="xs">
          <LinesTable
            kind="create"
            lines={preview.create}
            label={t('imports.preview.tabs.create', { n: counts.create })}
            assetId={assetId}
            isOn={(line) => !choices.leftOut.has(line)}
            onToggle={(line, on) => toggle('leftOut', line, !on)}
            category={(line) => choices.categories.get(line)}
            categoryOptions={categoryOptions}
            onCategory={(line, value) => setIn('categories', line, value)}
          />
        </Tabs.Panel>
        <Tabs.Panel value="likely" pt="xs">
          <LinesTable
            kind="likely"
            lines={likely}
            label={t('imports.preview.tabs.likely', { n: counts.likely })}
            assetId={assetId}
            isOn={(line) => choices.anyway.has(line)}
            onToggle={(line, on) => toggle('anyway', line, on)}
          />
        </Tabs.Panel>
        <Tabs.Panel value="duplicate" pt="xs">
          <LinesTable kind="duplicate" lines={before} label={t('imports.preview.tabs.duplicate', { n: counts.duplicate })} assetId={assetId} />
        </Tabs.Panel>
        <Tabs.Panel value="skipped" pt="xs">
          <LinesTable
            kind="skipped"
            lines={preview.skipped}
            label={t('imports.preview.tabs.skipped', { n: counts.skipped })}
            assetId={assetId}
            transferTargets={transferTargets}
            transfer={(line) => choices.transfers.get(line)}
            onTransfer={(line, value) => setIn('transfers', line, value)}
            isOn={(line) => choices.anyway.has(line)}
            onToggle={(line, on) => toggle('anyway', line, on)}
          />
        </Tabs.Panel>
        <Tabs.Panel value="invalid" pt="xs">
          <InvalidTable lines={preview.invalid} label={t('imports.preview.tabs.invalid', { n: counts.invalid })} />
        </Tabs.Panel>
      </Tabs>
      <Text size="xs" c="dimmed">
        {t('imports.preview.expires', { time: f.date(preview.expiresAt, 'datetime') })}
      </Text>
      <Group>
        <Button variant="default" onClick={onBack}>
          {t('imports.back')}
        </Button>
        {toImport > 0 && (
          <Button onClick={() => onCommit(overridesOf(choices))} loading={busy}>
            {t('imports.preview.commit', { count: toImport })}
          </Button>
        )}
        <Button variant="subtle" onClick={onCancel}>
          {toImport === 0 ? t('common.close') : t('common.cancel')}
        </Button>
      </Group>
    </Stack>
  );
}
