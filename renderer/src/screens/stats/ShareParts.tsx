import type { ReactNode } from 'react';
import { Skeleton, Table } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Chart } from '../../charts/Chart';
import { moneyTooltip } from '../../charts/chart-text';
import { Empty } from '../../components/common';
import { useFormat } from '../../lib/format';
import { PIE_COLORS } from './colors';

/**
 * The parts shared by the statistics' share cards (by category, by asset): a pie of how a total
 * is split, and the table that ranks its parts with their shares.
 */

/** A skeleton while the figures load, "no data" when there are none, else the card's chart and table. */
export function ShareBody({ loading, empty, children }: { loading: boolean; empty: boolean; children: ReactNode }) {
  const { t } = useTranslation();
  if (loading) return <Skeleton className="pp-chart" />;
  if (empty) return <Empty>{t('stats.noData')}</Empty>;
  return <>{children}</>;
}

export interface SharePieProps {
  /** The chart's accessible label. */
  label: string;
  /** The series name (the tooltip's heading). */
  name: string;
  currency: string;
  slices: readonly { name: string; value: number | null }[];
  /** A ring instead of a full pie. */
  donut?: boolean;
  /** The legend's text of a slice (default: its name). */
  legend?: (name: string) => string;
}

/** The pie on the left, its scrolling legend on the right; the share on every slice big enough to hold it (the legend and the table have them all). */
export function SharePie({ label, name, currency, slices, donut = false, legend }: SharePieProps) {
  const f = useFormat();
  return (
    <Chart
      label={label}
      option={{
        tooltip: { trigger: 'item', ...moneyTooltip(f, currency) },
        legend: { type: 'scroll', orient: 'vertical', right: 0, top: 'middle', ...(legend ? { formatter: legend } : {}) },
        color: PIE_COLORS,
        series: [
          {
            type: 'pie',
            radius: donut ? ['40%', '70%'] : '70%',
            center: ['25%', '50%'],
            name,
            data: slices.map((slice) => ({ name: slice.name, value: slice.value })),
            label: { show: true, position: 'inside', fontSize: 11, formatter: (p: { percent: number }) => (p.percent >= 6 ? `${Math.round(p.percent)}%` : '') },
            labelLine: { show: false },
          },
        ],
      }}
    />
  );
}

/** The table ranking the parts under the pie: its heading cells (figures aligned right) and its rows. */
export function ShareTable({ label, testId, columns, children }: { label: string; testId: string; columns: readonly { label: string; figure?: boolean }[]; children: ReactNode }) {
  return (
    <Table.ScrollContainer minWidth={340} type="native" mt="sm">
      <Table verticalSpacing={4} aria-label={label} data-testid={testId}>
        <Table.Thead>
          <Table.Tr>
            {columns.map((column) => (
              <Table.Th key={column.label} ta={column.figure ? 'right' : undefined}>
                {column.label}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>{children}</Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
