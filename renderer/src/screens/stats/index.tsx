import { useMemo, useState } from 'react';
import { Group, SegmentedControl, Select, Skeleton, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Chart } from '../../charts/Chart';
import { ErrorNote, PageHeader } from '../../components/common';
import { useApi } from '../../lib/data';
import { addDays, fromDateInput, startOfMonth, timeZone, toDateInput, useFormat } from '../../lib/format';
import { languageCurrency } from '../../lib/locale';
import { defaultGroup, presetRange, type GroupBy, type Preset } from './ranges';
import { Summary } from './Summary';
import { AssetShare } from './AssetShare';
import { CategoryShare } from './CategoryShare';
import { everyLabelAxis, moneyAxis, moneyTooltip, monthLabels } from '../../charts/chart-text';
import { DateField } from '../../components/DateField';

export function StatsPage() {
  const { t } = useTranslation();
  const f = useFormat();
  const [preset, setPreset] = useState<Preset>('last12Months');
  const [custom, setCustom] = useState(() => ({ from: toDateInput(startOfMonth(Date.now(), -2)), to: toDateInput(Date.now()) }));
  const [groupOverride, setGroupOverride] = useState<GroupBy | null>(null);

  const range = useMemo(() => {
    if (preset !== 'custom') return presetRange(preset, Date.now());
    const start = fromDateInput(custom.from);
    const endDay = fromDateInput(custom.to);
    if (start === null || endDay === null || endDay < start) return null;
    return { start, end: addDays(endDay, 1) };
  }, [preset, custom]);
  const groupBy = groupOverride ?? (range ? defaultGroup(range.start, range.end) : 'month');

  const ie = useApi('stats.getIncomeExpense', range ? { startDate: range.start, endDate: range.end, groupBy, timeZone } : null);
  const balance = useApi('stats.getTrend', range ? { type: 'balance', startDate: range.start, endDate: range.end, groupBy, timeZone } : null);
  const assets = useApi('stats.getAssetStats', {});

  const currency = ie.data?.currency ?? assets.data?.currency ?? languageCurrency(f.locale);
  const series = ie.data?.series ?? [];
  const label = (ms: number) => (groupBy === 'month' ? f.date(ms, 'month') : groupBy === 'year' ? String(new Date(ms).getFullYear()) : f.date(ms, 'short'));
  const labels = (starts: number[]) => (groupBy === 'month' ? monthLabels(f, starts) : starts.map(label));

  return (
    <div className="pp-page">
      <PageHeader title={t('stats.title')} />
      <div className="pp-card" style={{ marginBottom: 16 }}>
        <Group align="flex-end" gap="md" wrap="wrap">
          <Select
            label={t('stats.range')}
            value={preset}
            onChange={(v) => {
              if (v) setPreset(v);
              setGroupOverride(null);
            }}
            allowDeselect={false}
            data={(['thisMonth', 'last3Months', 'last12Months', 'thisYear', 'lastYear', 'custom'] as const).map((p) => ({ value: p, label: t(`stats.presets.${p}`) }))}
            w={200}
          />
          {preset === 'custom' && (
            <>
              <DateField
                w={160}
                label={t('records.from')}
                value={custom.from}
                onChange={(from) => setCustom({ ...custom, from })}
                error={range === null ? t('stats.badRange') : null}
              />
              <DateField w={160} label={t('records.to')} value={custom.to} onChange={(to) => setCustom({ ...custom, to })} />
            </>
          )}
          <div>
            <Text size="sm" fw={500} mb={4} id="group-by-label">
              {t('stats.groupBy')}
            </Text>
            <SegmentedControl
              aria-labelledby="group-by-label"
              value={groupBy}
              onChange={(v) => setGroupOverride(v)}
              data={(['day', 'week', 'month', 'year'] as const).map((g) => ({ value: g, label: t(`stats.groups.${g}`) }))}
            />
          </div>
        </Group>
      </div>
      <ErrorNote
        error={ie.error ?? balance.error}
        onRetry={() => {
          ie.reload();
          balance.reload();
        }}
      />

      <section className="pp-grid pp-grid-4" aria-label={t('dashboard.summary')} style={{ marginBottom: 16 }}>
        <Summary
          label={t('common.income')}
          value={ie.data ? f.money(ie.data.income.total, currency) : null}
          tone="pp-income"
          note={ie.data ? t('stats.count', { count: ie.data.income.count }) : ''}
          trend={ie.data?.income.trend}
          previous={ie.data ? f.money(ie.data.income.previousTotal, currency) : ''}
        />
        <Summary
          label={t('common.expense')}
          value={ie.data ? f.money(ie.data.expense.total, currency) : null}
          tone="pp-expense"
          note={ie.data ? t('stats.count', { count: ie.data.expense.count }) : ''}
          trend={ie.data?.expense.trend}
          previous={ie.data ? f.money(ie.data.expense.previousTotal, currency) : ''}
        />
        <Summary label={t('common.net')} value={ie.data ? f.money(ie.data.netIncome, currency, { sign: true }) : null} note="" />
        <Summary label={t('stats.averageExpense')} value={ie.data ? f.money(ie.data.expense.average, currency) : null} note={t('stats.perRecord')} />
      </section>

      <div className="pp-grid pp-grid-2">
        <section className="pp-card pp-span-2" aria-labelledby="st-ie">
          <Title order={2} size="h5" id="st-ie" mb="xs">
            {t('stats.incomeVsExpense')}
          </Title>
          {ie.data ? (
            <Chart
              label={t('stats.incomeVsExpenseChart')}
              className="pp-chart pp-chart-tall"
              option={{
                tooltip: { trigger: 'axis', ...moneyTooltip(f, currency) },
                legend: { top: 0 },
                grid: { left: 8, right: 8, top: 36, bottom: series.length > 40 ? 40 : 4, containLabel: true },
                dataZoom: series.length > 40 ? [{ type: 'slider', height: 18, bottom: 4 }] : undefined,
                xAxis: series.length <= 24 ? everyLabelAxis(labels(series.map((p) => p.startDate))) : { type: 'category', data: labels(series.map((p) => p.startDate)) },
                yAxis: moneyAxis(f, currency),
                series: [
                  { name: t('common.income'), type: 'bar', data: series.map((p) => p.income), itemStyle: { color: '#12b886' } },
                  { name: t('common.expense'), type: 'bar', data: series.map((p) => p.expense), itemStyle: { color: '#fa5252' } },
                  // Straight lines between the periods: a smoothed curve showed values no period had.
                  { name: t('common.net'), type: 'line', smooth: false, data: series.map((p) => p.net), itemStyle: { color: '#4c6ef5' } },
                ],
              }}
            />
          ) : (
            <Skeleton className="pp-chart pp-chart-tall" />
          )}
        </section>

        <CategoryShare range={range} />
        <AssetShare />

        <section className="pp-card pp-span-2" aria-labelledby="st-balance">
          <Title order={2} size="h5" id="st-balance" mb="xs">
            {t('stats.netWorthTrend')}
          </Title>
          {balance.data ? (
            <Chart
              label={t('stats.netWorthTrendChart')}
              option={{
                tooltip: { trigger: 'axis', ...moneyTooltip(f, balance.data.currency) },
                grid: { left: 8, right: 8, top: 16, bottom: 4, containLabel: true },
                xAxis:
                  balance.data.points.length <= 24
                    ? everyLabelAxis(labels(balance.data.points.map((p) => p.startDate)))
                    : { type: 'category', data: labels(balance.data.points.map((p) => p.startDate)) },
                // From zero (it started near the smallest value, e.g. at 1,000, and made small changes look large).
                yAxis: { ...moneyAxis(f, balance.data.currency), scale: false },
                series: [
                  {
                    name: t('dashboard.netWorth'),
                    type: 'line',
                    areaStyle: { opacity: 0.15 },
                    smooth: false,
                    data: balance.data.points.map((p) => p.value),
                    itemStyle: { color: '#12b886' },
                  },
                ],
              }}
            />
          ) : (
            <Skeleton className="pp-chart" />
          )}
        </section>
      </div>
    </div>
  );
}
