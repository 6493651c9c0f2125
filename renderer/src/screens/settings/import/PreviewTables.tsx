import { useState } from 'react';
import { Badge, Button, Checkbox, Group, Select, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Amount, Empty } from '../../../components/common';
import { RuleBadge } from '../../../components/RuleBadge';
import { useFormat } from '../../../lib/format';
import type { InvalidLine, LikelyLine, PreviewLine } from './types';

/** Rows shown at first, and added by "Show more" (a statement can have thousands). */
const PAGE = 100;

/** The transfer select's "not imported" option. */
const LEAVE_OUT = 'leave-out';

type Kind = 'create' | 'likely' | 'duplicate' | 'skipped';
type Option = { value: string; label: string };

/** The reasons a line is skipped that the UI words itself (import.preview `skipReason`). */
const SKIP_REASONS = new Set(['failed', 'pending', 'closed', 'refundOfClosed', 'refundOfUnknown', 'ownTransfer', 'zero', 'openingBalance']);
/** The kinds of unreadable lines the UI names (the server's sentence says the details). */
const INVALID_KINDS = new Set(['badDate', 'badAmount', 'badDirection', 'missingField', 'badRow', 'currencyMismatch', 'tooLong']);

function ShowMore({ shown, total, onMore }: { shown: number; total: number; onMore: () => void }) {
  const { t } = useTranslation();
  if (shown >= total) return null;
  return (
    <Group justify="center" mt="xs">
      <Button size="xs" variant="default" onClick={onMore}>
        {t('imports.preview.showMore', { shown, total })}
      </Button>
    </Group>
  );
}

/**
 * The lines of one tab of the preview: date, description (with badges for rules, refunds and
 * another asset), the category or the reason, the amount coloured by type; for lines to create a
 * checkbox to leave one out and a category select, for likely duplicates "Import anyway", for a
 * move between one's own accounts the asset to book it as a transfer to.
 */
export function LinesTable({
  kind,
  lines,
  label,
  assetId,
  isOn,
  onToggle,
  category,
  categoryOptions,
  onCategory,
  transferTargets,
  transfer,
  onTransfer,
}: {
  kind: Kind;
  lines: readonly PreviewLine[];
  label: string;
  assetId: string;
  isOn?: (line: number) => boolean;
  onToggle?: (line: number, on: boolean) => void;
  category?: (line: number) => string | undefined;
  categoryOptions?: (type: string) => Option[];
  onCategory?: (line: number, value: string | null) => void;
  transferTargets?: (line: PreviewLine) => Option[];
  transfer?: (line: number) => string | undefined;
  onTransfer?: (line: number, value: string | null) => void;
}) {
  const { t } = useTranslation();
  const f = useFormat();
  const [shown, setShown] = useState(PAGE);
  if (lines.length === 0) return <Empty>{t('imports.preview.none')}</Empty>;
  const reasonOf = (line: LikelyLine) =>
    kind === 'likely'
      ? line.match
        ? t('imports.preview.likelyMatch', {
            date: f.date(line.match.date),
            description: line.match.description || line.match.category,
            amount: f.money(line.match.amount, line.currency),
          })
        : t('imports.preview.likelyReason')
      : line.skipReason && SKIP_REASONS.has(line.skipReason)
        ? t(`imports.skip.${line.skipReason as 'zero'}`)
        : (line.reason ?? '');
  const checkable = kind === 'create' || kind === 'likely';
  return (
    <>
      <div className="pp-table-wrap">
        <Table aria-label={label} verticalSpacing={4} data-testid={`preview-${kind}`}>
          <Table.Thead>
            <Table.Tr>
              {checkable && <Table.Th w={kind === 'likely' ? 140 : 70}>{kind === 'likely' ? t('imports.preview.importAnyway') : t('imports.preview.import')}</Table.Th>}
              <Table.Th w={110}>{t('imports.preview.date')}</Table.Th>
              <Table.Th>{t('imports.preview.description')}</Table.Th>
              <Table.Th w={kind === 'create' ? 180 : undefined}>{kind === 'create' || kind === 'duplicate' ? t('imports.preview.category') : t('imports.preview.reason')}</Table.Th>
              <Table.Th w={120} ta="right">
                {t('imports.preview.amount')}
              </Table.Th>
              {kind === 'skipped' && <Table.Th w={200}>{t('imports.preview.transfer')}</Table.Th>}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {lines.slice(0, shown).map((line) => (
              <Table.Tr key={line.line} data-testid="preview-line" data-line={line.line} aria-label={t('imports.preview.line', { line: line.line })}>
                {checkable && (
                  <Table.Td>
                    <Checkbox
                      aria-label={kind === 'likely' ? t('imports.preview.importAnywayLine', { line: line.line }) : t('imports.preview.includeLine', { line: line.line })}
                      checked={isOn?.(line.line) ?? false}
                      onChange={(e) => onToggle?.(line.line, e.currentTarget.checked)}
                    />
                  </Table.Td>
                )}
                <Table.Td>{f.date(line.date)}</Table.Td>
                <Table.Td>
                  <Text size="sm" lineClamp={2}>
                    {line.description || line.payee || '—'}
                  </Text>
                  <Group gap={4}>
                    <RuleBadge rules={line.rules} />
                    {line.refund && (
                      <Badge size="xs" variant="light" color="teal">
                        {t('imports.preview.refund')}
                      </Badge>
                    )}
                    {line.asset !== assetId && line.assetName && (
                      <Text size="xs" c="dimmed">
                        {line.assetName}
                      </Text>
                    )}
                  </Group>
                </Table.Td>
                <Table.Td>
                  {kind === 'create' && categoryOptions && onCategory ? (
                    <Select
                      size="xs"
                      aria-label={t('imports.preview.categoryOf', { line: line.line })}
                      data={withCurrent(categoryOptions(line.type), line.category)}
                      value={category?.(line.line) ?? line.category}
                      onChange={(v) => onCategory(line.line, v === line.category ? null : v)}
                      allowDeselect={false}
                      searchable
                      disabled={isOn ? !isOn(line.line) : false}
                    />
                  ) : kind === 'create' || kind === 'duplicate' ? (
                    <Text size="sm">{line.category}</Text>
                  ) : (
                    <Text size="xs" c="dimmed" data-testid="preview-reason">
                      {reasonOf(line)}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td ta="right">
                  <Amount amount={line.amount} currency={line.currency} type={line.type} />
                </Table.Td>
                {kind === 'skipped' && (
                  <Table.Td>
                    {line.skipReason === 'ownTransfer' && transferTargets && onTransfer ? (
                      <Select
                        size="xs"
                        aria-label={t('imports.preview.transferLine', { line: line.line })}
                        data={[{ value: LEAVE_OUT, label: t('imports.preview.leaveOut') }, ...transferTargets(line)]}
                        value={transfer?.(line.line) ?? LEAVE_OUT}
                        onChange={(v) => onTransfer(line.line, v === LEAVE_OUT ? null : v)}
                        allowDeselect={false}
                      />
                    ) : line.skipReason === 'refundOfUnknown' && onToggle ? (
                      <Checkbox
                        label={t('imports.preview.importAnyway')}
                        aria-label={t('imports.preview.importAnywayLine', { line: line.line })}
                        checked={isOn?.(line.line) ?? false}
                        onChange={(e) => onToggle(line.line, e.currentTarget.checked)}
                      />
                    ) : null}
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </div>
      <ShowMore shown={shown} total={lines.length} onMore={() => setShown((n) => n + PAGE)} />
    </>
  );
}

/** The category select's options, with the line's own category even when it is new (created by the import). */
function withCurrent(options: Option[], current: string): Option[] {
  return options.some((o) => o.value === current) ? options : [{ value: current, label: current }, ...options];
}

/** Lines that cannot be read: the line number and why. */
export function InvalidTable({ lines, label }: { lines: readonly InvalidLine[]; label: string }) {
  const { t } = useTranslation();
  const [shown, setShown] = useState(PAGE);
  if (lines.length === 0) return <Empty>{t('imports.preview.none')}</Empty>;
  return (
    <>
      <div className="pp-table-wrap">
        <Table aria-label={label} verticalSpacing={4} data-testid="preview-invalid">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={80}>{t('settings.line')}</Table.Th>
              <Table.Th>{t('settings.problem')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {lines.slice(0, shown).map((line, index) => (
              <Table.Tr key={`${line.line}:${index}`}>
                <Table.Td>{line.line}</Table.Td>
                <Table.Td>
                  {INVALID_KINDS.has(line.kind) && <Text size="sm">{t(`imports.invalid.${line.kind as 'badRow'}`)}</Text>}
                  <Text size="xs" c="dimmed">
                    {line.reason}
                  </Text>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </div>
      <ShowMore shown={shown} total={lines.length} onMore={() => setShown((n) => n + PAGE)} />
    </>
  );
}
