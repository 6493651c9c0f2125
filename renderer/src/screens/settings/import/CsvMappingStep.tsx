import { useState } from 'react';
import { Button, Checkbox, Group, NumberInput, SegmentedControl, Select, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { CsvDescription, CsvMapping, MappingDraft } from './types';

/** The columns a generic CSV maps, besides the amount (one column, or money in and money out). */
const TEXT_COLUMNS = ['payee', 'description', 'externalId', 'currency', 'category'] as const;
type Column = 'date' | 'amount' | 'inflow' | 'outflow' | (typeof TEXT_COLUMNS)[number];
/** The value of the "(none)" option of a column select. */
const NONE = 'none';

/** The date formats a mapping takes, by the key of their words. */
const DATE_FORMATS = [
  { value: 'YYYY-MM-DD', key: 'ymd' },
  { value: 'DD/MM/YYYY', key: 'dmy' },
  { value: 'MM/DD/YYYY', key: 'mdy' },
  { value: 'DD.MM.YYYY', key: 'dmyDots' },
] as const;

/** Whether the mapping names what a preview needs: a date and an amount (or money in / money out). */
export function mappingComplete(mapping: MappingDraft): mapping is CsvMapping {
  return mapping.date !== undefined && (mapping.amount !== undefined || mapping.inflow !== undefined || mapping.outflow !== undefined);
}

/**
 * Step 2 for a generic CSV: which column holds what, the date format and the decimal mark, with
 * the first rows of the file beside it. Prefilled with the mapping last used for files with this
 * header (import.describeCsv `saved`), else the server's guess from the header names.
 */
export function CsvMappingStep({
  described,
  mapping,
  onChange,
  onReading,
  busy,
  onBack,
  onNext,
}: {
  described: CsvDescription;
  mapping: MappingDraft;
  onChange: (mapping: MappingDraft) => void;
  /** Read the file again with other lines to skip, or with or without a header row. */
  onReading: (reading: { skipRows: number; header: boolean }) => void;
  busy: boolean;
  onBack: () => void;
  onNext: () => void;
}) {
  const { t } = useTranslation();
  const [skipRows, setSkipRows] = useState<number>(described.skipRows);
  const [split, setSplit] = useState(mapping.amount === undefined && (mapping.inflow !== undefined || mapping.outflow !== undefined));
  const columns = described.headers.map((header, index) => ({ value: String(index), label: header.trim() || t('imports.mapping.column', { n: index + 1 }) }));
  const set = (column: Column, value: string | null) => {
    // A column set to none is undefined: left out of the JSON sent (the server reads an absent key as "not in this file").
    onChange({ ...mapping, [column]: value === null || value === NONE ? undefined : Number(value) });
  };
  // "(none)" is an option of its own (not only a clear button), so it can be chosen from the keyboard.
  const withNone = [{ value: NONE, label: t('imports.mapping.none') }, ...columns];
  const columnSelect = (column: Column, required = false) => (
    <Select
      key={column}
      label={t(`imports.mapping.fields.${column}`)}
      placeholder={t('imports.mapping.choose')}
      data={required ? columns : withNone}
      value={mapping[column] === undefined ? (required ? null : NONE) : String(mapping[column])}
      onChange={(v) => set(column, v)}
      allowDeselect={false}
      required={required}
    />
  );
  const switchAmount = (to: string) => {
    setSplit(to === 'split');
    const { amount, inflow, outflow, ...rest } = mapping;
    onChange(
      to === 'split'
        ? { ...rest, ...(inflow !== undefined ? { inflow } : {}), ...(outflow !== undefined ? { outflow } : {}) }
        : { ...rest, ...(amount !== undefined ? { amount } : {}) },
    );
  };
  const complete = mappingComplete(mapping);
  return (
    <Stack gap="sm" data-testid="csv-mapping">
      <Title order={3} size="h6">
        {t('imports.mapping.title')}
      </Title>
      <Text size="sm" c="dimmed">
        {described.saved ? t('imports.mapping.saved') : t('imports.mapping.guessed')}
      </Text>
      {/* Where the table starts: found by the server (lines above the header row skipped, a file without one noticed), changeable. */}
      <Group align="flex-end" gap="md">
        <NumberInput
          w={220}
          label={t('imports.mapping.skipRows')}
          min={0}
          max={100}
          allowDecimal={false}
          value={skipRows}
          onChange={(v) => setSkipRows(typeof v === 'number' ? v : 0)}
          onBlur={() => skipRows !== described.skipRows && onReading({ skipRows, header: described.header })}
        />
        <Checkbox
          mb={6}
          label={t('imports.mapping.noHeader')}
          checked={!described.header}
          onChange={(e) => onReading({ skipRows, header: !e.currentTarget.checked })}
          data-testid="csv-no-header"
        />
      </Group>
      {!described.header && (
        <Text size="sm" role="status" data-testid="csv-no-header-note">
          {t('imports.mapping.noHeaderFound')}
        </Text>
      )}
      <div className="pp-table-wrap">
        <Table aria-label={t('imports.mapping.sample')} withTableBorder striped fz="xs">
          <Table.Thead>
            <Table.Tr>
              {described.headers.map((header, index) => (
                <Table.Th key={index}>{header || t('imports.mapping.column', { n: index + 1 })}</Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {described.sample.map((row, r) => (
              <Table.Tr key={r}>
                {described.headers.map((_, c) => (
                  <Table.Td key={c}>{row[c] ?? ''}</Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </div>
      <div className="pp-grid pp-grid-3">
        {columnSelect('date', true)}
        <Select
          label={t('imports.mapping.dateFormat')}
          data={DATE_FORMATS.map((f) => ({ value: f.value, label: t(`imports.mapping.dateFormats.${f.key}`) }))}
          value={mapping.dateFormat ?? 'YYYY-MM-DD'}
          onChange={(v) => v && onChange({ ...mapping, dateFormat: v })}
          allowDeselect={false}
        />
        <Select
          label={t('imports.mapping.decimal')}
          data={[
            { value: '.', label: t('imports.mapping.decimals.point') },
            { value: ',', label: t('imports.mapping.decimals.comma') },
          ]}
          value={mapping.decimal ?? '.'}
          onChange={(v) => v && onChange({ ...mapping, decimal: v })}
          allowDeselect={false}
        />
      </div>
      <SegmentedControl
        aria-label={t('imports.mapping.amountKind')}
        value={split ? 'split' : 'one'}
        onChange={switchAmount}
        data={[
          { value: 'one', label: t('imports.mapping.oneAmount') },
          { value: 'split', label: t('imports.mapping.splitAmount') },
        ]}
      />
      <div className="pp-grid pp-grid-3">
        {split ? [columnSelect('inflow'), columnSelect('outflow')] : columnSelect('amount', true)}
        {TEXT_COLUMNS.map((column) => columnSelect(column))}
      </div>
      {!split && (
        <Checkbox
          label={t('imports.mapping.positiveIsExpense')}
          checked={mapping.positiveIsExpense ?? false}
          onChange={(e) => onChange({ ...mapping, positiveIsExpense: e.currentTarget.checked })}
        />
      )}
      {!complete && (
        <Text size="sm" c="red" role="status">
          {t('imports.mapping.incomplete')}
        </Text>
      )}
      <Group>
        <Button variant="default" onClick={onBack}>
          {t('imports.back')}
        </Button>
        <Button onClick={onNext} disabled={!complete} loading={busy}>
          {t('imports.toPreview')}
        </Button>
      </Group>
    </Stack>
  );
}
