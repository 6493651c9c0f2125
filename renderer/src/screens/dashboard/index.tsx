import { useMemo } from 'react';
import { Badge, Button, Group, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Amount, Empty, ErrorNote, PageHeader, ProgressBar } from '../../components/common';
import { bothAmounts } from '../../components/BothAmounts';
import { Chart } from '../../charts/Chart';
import { everyLabelAxis, moneyAxis, moneyTooltip, monthLabels } from '../../charts/chart-text';
import { useApi } from '../../lib/data';
import { startOfMonth, timeZone, useFormat } from '../../lib/format';
import { languageCurrency } from '../../lib/locale';
import { Link, navigate } from '../../lib/router';
import { BudgetsCard } from '../budgets/BudgetsCard';
import { Compare, StatCard } from './StatCard';
import { UpcomingCard } from './UpcomingCard';
import { Card } from '../../components/Card';

/** The numbers a person looks at first: net worth, this month against last, trend, categories, recent records, goals. */
export function DashboardPage() {
  const { t } = useTranslation();
  const f = useFormat();
  const range = useMemo(() => {
    const now = Date.now();
    return { yearStart: startOfMonth(now, -11), monthStart: startOfMonth(now), nextMonth: startOfMonth(now, 1) };
  }, []);
  const assets = useApi('stats.getAssetStats', {});
  const months = useApi('stats.getIncomeExpense', { startDate: range.yearStart, endDate: range.nextMonth, groupBy: 'month', timeZone });
  const categories = useApi('stats.getCategoryStats', { type: 'expense', startDate: range.monthStart, endDate: range.nextMonth, limit: 5 });
  const recent = useApi('accounting.query', { page: 1, pageSize: 6 });
  const goals = useApi('savings.queryGoals', { status: 'active', page: 1, pageSize: 4 });

  const series = months.data?.series ?? [];
  const thisMonth = series.at(-1);
  const lastMonth = series.at(-2);
  const currency = assets.data?.currency ?? months.data?.currency ?? languageCurrency(f.locale);
  const noAssets = assets.data !== undefined && assets.data.byType.length === 0;
  const topCategories = categories.data;

  return (
    <div className="pp-page">
      <PageHeader title={t('dashboard.title')}>
        <Button onClick={() => navigate('/records?new=expense')}>{t('dashboard.addRecord')}</Button>
      </PageHeader>
      <ErrorNote
        error={assets.error ?? months.error}
        onRetry={() => {
          assets.reload();
          months.reload();
        }}
      />
      {noAssets && (
        <div className="pp-card" style={{ marginBottom: 16 }}>
          <Group justify="space-between">
            <div>
              <Title order={2} size="h4">
                {t('dashboard.startTitle')}
              </Title>
              <Text c="dimmed" size="sm">
                {t('dashboard.startText')}
              </Text>
            </div>
            <Button onClick={() => navigate('/assets?new=1')}>{t('dashboard.createAsset')}</Button>
          </Group>
        </div>
      )}
      <section className="pp-grid pp-grid-4" aria-label={t('dashboard.summary')}>
        <StatCard label={t('dashboard.netWorth')} testId="net-worth" loading={!assets.data}>
          {assets.data && f.money(assets.data.netWorth, currency)}
          {assets.data && assets.data.liabilities !== 0 && (
            <Text size="xs" c="dimmed">
              {t('dashboard.assetsLiabilities', { assets: f.money(assets.data.assets, currency), liabilities: f.money(assets.data.liabilities, currency) })}
            </Text>
          )}
        </StatCard>
        <StatCard label={t('dashboard.incomeThisMonth')} testId="month-income" loading={!months.data}>
          {thisMonth && <span className="pp-income">{f.money(thisMonth.income, currency)}</span>}
          {thisMonth && <Compare current={thisMonth.income} previous={lastMonth?.income ?? 0} currency={currency} goodWhenUp />}
        </StatCard>
        <StatCard label={t('dashboard.expenseThisMonth')} testId="month-expense" loading={!months.data}>
          {thisMonth && <span className="pp-expense">{f.money(thisMonth.expense, currency)}</span>}
          {thisMonth && <Compare current={thisMonth.expense} previous={lastMonth?.expense ?? 0} currency={currency} goodWhenUp={false} />}
        </StatCard>
        <StatCard label={t('dashboard.netThisMonth')} testId="month-net" loading={!months.data}>
          {thisMonth && f.money(thisMonth.net, currency, { sign: true })}
          {thisMonth && <Compare current={thisMonth.net} previous={lastMonth?.net ?? 0} currency={currency} goodWhenUp />}
        </StatCard>
      </section>

      <div className="pp-grid pp-grid-main" style={{ marginTop: 16 }}>
        <Card id="dash-trend" title={t('dashboard.trend')}>
          {months.data ? (
            <Chart
              label={t('dashboard.trendChart')}
              option={{
                tooltip: { trigger: 'axis', ...moneyTooltip(f, currency) },
                legend: { top: 0 },
                grid: { left: 8, right: 8, top: 36, bottom: 4, containLabel: true },
                // Every month named, this one included (ECharts left every other label out).
                xAxis: everyLabelAxis(
                  monthLabels(
                    f,
                    series.map((p) => p.startDate),
                  ),
                ),
                yAxis: moneyAxis(f, currency),
                series: [
                  { name: t('common.income'), type: 'bar', data: series.map((p) => p.income), itemStyle: { color: '#12b886' } },
                  { name: t('common.expense'), type: 'bar', data: series.map((p) => p.expense), itemStyle: { color: '#fa5252' } },
                  { name: t('common.net'), type: 'line', smooth: false, data: series.map((p) => p.net), itemStyle: { color: '#4c6ef5' } },
                ],
              }}
            />
          ) : (
            <Skeleton className="pp-chart" />
          )}
        </Card>
        <Card id="dash-categories" title={t('dashboard.topCategories')}>
          {!topCategories ? (
            <Skeleton h={200} />
          ) : topCategories.categories.length === 0 ? (
            <Empty>{t('dashboard.noExpenses')}</Empty>
          ) : (
            <Stack gap="sm">
              {topCategories.categories.map((c) => (
                <div key={c.category}>
                  <Group justify="space-between" gap="xs" wrap="nowrap">
                    <Text size="sm" truncate>
                      {c.category}
                    </Text>
                    <Text size="sm" className="pp-num">
                      {f.money(c.amount, topCategories.currency)} · {f.percent(c.share)}
                    </Text>
                  </Group>
                  <ProgressBar value={c.share * 100} label={c.category} tone="expense" />
                </div>
              ))}
            </Stack>
          )}
        </Card>
      </div>

      <div className="pp-grid pp-grid-main" style={{ marginTop: 16 }}>
        <Card id="dash-recent" title={t('dashboard.recent')} aside={<Link href="/records">{t('dashboard.allRecords')}</Link>}>
          {!recent.data ? (
            <Skeleton h={200} />
          ) : recent.data.list.length === 0 ? (
            <Empty>{t('dashboard.noRecords')}</Empty>
          ) : (
            <ul className="pp-plain-list" aria-label={t('dashboard.recent')}>
              {recent.data.list.map((r) => (
                <li key={r.id}>
                  <Group justify="space-between" wrap="nowrap" py={6} data-testid="recent-record">
                    <div style={{ minWidth: 0 }}>
                      {/* The note first, as in the records list; a transfer's assets go to the line under it. */}
                      <Text size="sm" fw={500} truncate>
                        {r.description || (r.type === 'transfer' ? t('common.transfer') : r.category)}
                      </Text>
                      <Text size="xs" c="dimmed" truncate>
                        {f.date(r.date)} · {r.type === 'transfer' ? `${t('common.transfer')} · ${r.assetName} → ${r.toAssetName ?? ''}` : `${r.category} · ${r.assetName}`}
                      </Text>
                    </div>
                    {bothAmounts(f.locale, r) ?? <Amount amount={r.amount} currency={r.currency} type={r.type} />}
                  </Group>
                </li>
              ))}
            </ul>
          )}
        </Card>
        <Card id="dash-goals" title={t('dashboard.goals')} aside={<Link href="/savings">{t('dashboard.allGoals')}</Link>}>
          {goals.error ? (
            <ErrorNote error={goals.error} />
          ) : !goals.data ? (
            <Skeleton h={160} />
          ) : goals.data.list.length === 0 ? (
            <Empty>{t('dashboard.noGoals')}</Empty>
          ) : (
            <Stack gap="md">
              {goals.data.list.map((g) => (
                <div key={g.id}>
                  <Group justify="space-between" wrap="nowrap" gap="xs">
                    <Text size="sm" fw={500} truncate>
                      {g.title}
                    </Text>
                    <Badge variant="light" color={g.pace === 'behind' ? 'orange' : 'teal'}>
                      {f.percent(g.percent / 100, 0)}
                    </Badge>
                  </Group>
                  <ProgressBar value={g.percent} label={g.title} />
                  <Text size="xs" c="dimmed" mt={2}>
                    {f.money(g.currentAmount, g.currency)} / {f.money(g.targetAmount, g.currency)}
                  </Text>
                </div>
              ))}
            </Stack>
          )}
        </Card>
      </div>
      <div style={{ marginTop: 16 }}>
        <BudgetsCard />
        <UpcomingCard />
      </div>
    </div>
  );
}
