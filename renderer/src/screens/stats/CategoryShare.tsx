import { useState } from 'react';
import { SegmentedControl, Skeleton, Table } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Chart } from '../../charts/Chart';
import { moneyTooltip } from '../../charts/chart-text';
import { Empty } from '../../components/common';
import { useApi } from '../../lib/data';
import { useFormat } from '../../lib/format';
import { PIE_COLORS } from './colors';
import { Card } from '../../components/Card';

/**
 * Where the money went (or came from) in the range: a donut whose slices and legend carry the
 * amount and the share without hovering, and the categories ranked in a table (issue 36, finding 15).
 */
export function CategoryShare({ range }: { range: { start: number; end: number } | null }) {
  const { t } = useTranslation();
  const f = useFormat();
  const [type, setType] = useState<'expense' | 'income'>('expense');
  const cats = useApi('stats.getCategoryStats', range ? { type, startDate: range.start, endDate: range.end, limit: 8 } : null);
  const data = cats.data;
  const rows = data
    ? [
        ...data.categories.map((c) => ({ name: c.category, amount: c.amount, share: c.share, count: c.count })),
        ...(data.other ? [{ name: t('stats.otherCategories'), amount: data.other.amount, share: data.other.share, count: data.other.count }] : []),
      ]
    : [];
  const byName = new Map(rows.map((row) => [row.name, row]));
  return (
    <Card
      id="st-cat"
      title={t('stats.byCategory')}
      aside={
        <SegmentedControl
          size="xs"
          aria-label={t('stats.categoryType')}
          value={type}
          onChange={(v) => setType(v)}
          data={[
            { value: 'expense', label: t('common.expense') },
            { value: 'income', label: t('common.income') },
          ]}
        />
      }
    >
      {!data ? (
        <Skeleton className="pp-chart" />
      ) : rows.length === 0 ? (
        <Empty>{t('stats.noData')}</Empty>
      ) : (
        <>
          <Chart
            label={t('stats.byCategoryChart')}
            option={{
              tooltip: { trigger: 'item', ...moneyTooltip(f, data.currency) },
              legend: {
                type: 'scroll',
                orient: 'vertical',
                right: 0,
                top: 'middle',
                formatter: (name: string) => {
                  const row = byName.get(name);
                  return row ? `${name}  ${f.money(row.amount, data.currency)} · ${f.percent(row.share, 0)}` : name;
                },
              },
              color: PIE_COLORS,
              series: [
                {
                  type: 'pie',
                  radius: ['40%', '70%'],
                  center: ['25%', '50%'],
                  name: t('stats.byCategory'),
                  data: rows.map((row) => ({ name: row.name, value: row.amount })),
                  // The share on every slice big enough to hold it; the legend and the table have them all.
                  label: { show: true, position: 'inside', fontSize: 11, formatter: (p: { percent: number }) => (p.percent >= 6 ? `${Math.round(p.percent)}%` : '') },
                  labelLine: { show: false },
                },
              ],
            }}
          />
          <Table.ScrollContainer minWidth={340} type="native" mt="sm">
            <Table verticalSpacing={4} aria-label={t('stats.rankedCategories')} data-testid="category-ranking">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('stats.rank')}</Table.Th>
                  <Table.Th>{t('records.category')}</Table.Th>
                  <Table.Th ta="right">{t('records.amount')}</Table.Th>
                  <Table.Th ta="right">{t('stats.share')}</Table.Th>
                  <Table.Th ta="right">{t('stats.records')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((row, i) => (
                  <Table.Tr key={row.name}>
                    <Table.Td className="pp-num">{i + 1}</Table.Td>
                    <Table.Td>{row.name}</Table.Td>
                    <Table.Td ta="right" className="pp-num">
                      {f.money(row.amount, data.currency)}
                    </Table.Td>
                    <Table.Td ta="right" className="pp-num">
                      {f.percent(row.share)}
                    </Table.Td>
                    <Table.Td ta="right" className="pp-num">
                      {f.number(row.count)}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </>
      )}
    </Card>
  );
}
