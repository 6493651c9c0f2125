import { useState } from 'react';
import { SegmentedControl, Table } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useApi } from '../../lib/data';
import { useFormat } from '../../lib/format';
import { Card } from '../../components/Card';
import { ShareBody, SharePie, ShareTable } from './ShareParts';

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
      <ShareBody loading={!data} empty={rows.length === 0}>
        {data && (
          <>
            <SharePie
              label={t('stats.byCategoryChart')}
              name={t('stats.byCategory')}
              currency={data.currency}
              slices={rows.map((row) => ({ name: row.name, value: row.amount }))}
              donut
              legend={(name) => {
                const row = byName.get(name);
                return row ? `${name}  ${f.money(row.amount, data.currency)} · ${f.percent(row.share, 0)}` : name;
              }}
            />
            <ShareTable
              label={t('stats.rankedCategories')}
              testId="category-ranking"
              columns={[
                { label: t('stats.rank') },
                { label: t('records.category') },
                { label: t('records.amount'), figure: true },
                { label: t('stats.share'), figure: true },
                { label: t('stats.records'), figure: true },
              ]}
            >
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
            </ShareTable>
          </>
        )}
      </ShareBody>
    </Card>
  );
}
