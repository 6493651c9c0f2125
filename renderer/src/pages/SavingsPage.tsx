import { useState, type FormEvent } from 'react';
import { Badge, Button, Checkbox, Group, Menu, Modal, SegmentedControl, Select, Skeleton, Stack, Switch, Table, Text, TextInput, Textarea, Title, ActionIcon, Pagination } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { call, type ResultOf } from '../api/client';
import { Chart } from '../charts/Chart';
import { Empty, ErrorNote, PageHeader, ProgressBar, FormActions } from '../components/common';
import { checkFields, NumberField, useNumberField } from '../components/NumberField';
import { useAction, useApi } from '../lib/data';
import { useErrorText } from '../lib/errors';
import { addDays, currencyDigits, fromDateInput, toDateInput, useFormat } from '../lib/format';
import { useAssets } from '../lib/ledger';
import { navigate } from '../lib/router';
import { RoutedTabs } from '../components/RoutedTabs';
import { CURRENCIES } from '../lib/currencies';

type Goal = ResultOf<'savings.queryGoals'>['list'][number];
type Reward = { reason: string; coins: number; note: string };
/** Shares per trade the server accepts (savings.buyStock / sellStock: a whole number from 1 to 1,000,000). */
const MAX_TRADE_QUANTITY = 1_000_000;
const GOAL_CATEGORIES = ['emergency', 'travel', 'home', 'car', 'education', 'wedding', 'retirement', 'health', 'gadget', 'gift', 'investment', 'other'] as const;

export default function SavingsPage() {
  const { t } = useTranslation();
  const wallet = useApi('savings.getWallet', { page: 1, pageSize: 1 });
  const f = useFormat();
  return (
    <div className="pp-page">
      <PageHeader title={t('savings.title')}>
        <Text size="sm" data-testid="wallet-cash">
          {t('savings.coins')}: <strong className="pp-num">{wallet.data ? f.number(wallet.data.cash, { maximumFractionDigits: 2 }) : '…'}</strong>
        </Text>
      </PageHeader>
      <RoutedTabs
        path="/savings"
        tabs={[
          { value: 'goals', label: t('savings.tabs.goals'), panel: <GoalsTab /> },
          { value: 'market', label: t('savings.tabs.market'), panel: <MarketTab /> },
          { value: 'portfolio', label: t('savings.tabs.portfolio'), panel: <PortfolioTab /> },
          { value: 'achievements', label: t('savings.tabs.achievements'), panel: <AchievementsTab /> },
          { value: 'leaderboard', label: t('savings.tabs.leaderboard'), panel: <LeaderboardTab /> },
        ]}
      />
    </div>
  );
}

function useRewardToast() {
  const { t } = useTranslation();
  return (rewards: Reward[] | undefined) => {
    const coins = (rewards ?? []).reduce((sum, r) => sum + r.coins, 0);
    if (coins > 0) notifications.show({ color: 'yellow', title: t('savings.rewardTitle'), message: t('savings.rewardText', { coins }) });
  };
}

/* ------------------------------------------------------------------ goals */

function GoalsTab() {
  const { t } = useTranslation();
  const [status, setStatus] = useState<'open' | 'completed' | 'all'>('open');
  const [creating, setCreating] = useState(false);
  const goals = useApi('savings.queryGoals', { page: 1, pageSize: 100, ...(status === 'completed' ? { status: 'completed' as const } : {}) });
  const list = (goals.data?.list ?? []).filter((g) => status !== 'open' || g.status === 'active' || g.status === 'paused');
  return (
    <>
      <Group justify="space-between" mb="md">
        <SegmentedControl
          aria-label={t('savings.goalFilter')}
          value={status}
          onChange={(v) => setStatus(v as typeof status)}
          data={[
            { value: 'open', label: t('savings.filter.open') },
            { value: 'completed', label: t('savings.filter.completed') },
            { value: 'all', label: t('savings.filter.all') },
          ]}
        />
        <Button onClick={() => setCreating(true)}>{t('savings.newGoal')}</Button>
      </Group>
      <ErrorNote error={goals.error} onRetry={goals.reload} />
      {!goals.data ? (
        <Skeleton h={200} />
      ) : list.length === 0 ? (
        <div className="pp-card">
          <Empty>{t('savings.noGoals')}</Empty>
        </div>
      ) : (
        <div className="pp-grid pp-grid-2">
          {list.map((goal) => (
            <GoalCard key={goal.id} goal={goal} />
          ))}
        </div>
      )}
      {creating && <GoalEditor onClose={() => setCreating(false)} />}
    </>
  );
}

function GoalCard({ goal }: { goal: Goal }) {
  const { t } = useTranslation();
  const f = useFormat();
  const errorText = useErrorText();
  const toast = useRewardToast();
  const amount = useNumberField({ kind: 'money', currency: goal.currency, decimals: currencyDigits(goal.currency), sign: 'positive' });
  const action = useAction();
  const contribute = async (sign: 1 | -1) => {
    if (amount.text.trim() === '' || !checkFields(amount)) return;
    const result = await action.run(() => call('savings.updateProgress', { goalId: goal.id, amount: sign * (amount.value ?? 0) }));
    if (result) {
      amount.reset();
      toast(result.rewards);
      if (result.status === 'completed') notifications.show({ color: 'teal', title: t('savings.completedTitle'), message: t('savings.completedText', { title: goal.title }) });
    }
  };
  const setStatus = (status: 'active' | 'paused' | 'cancelled') => action.run(() => call('savings.updateGoal', { goalId: goal.id, status }));
  const open = goal.status === 'active';
  return (
    <section className="pp-card" aria-label={goal.title} data-testid={`goal-${goal.title}`}>
      <Group justify="space-between" wrap="nowrap" mb={4}>
        <Title order={3} size="h5" style={{ minWidth: 0 }}>
          <Text inherit truncate>
            {goal.title}
          </Text>
        </Title>
        <Group gap={6} wrap="nowrap">
          <Badge variant="light" color="gray">
            {t(`savings.categories.${goal.category}`)}
          </Badge>
          <Badge variant="light" color={goal.status === 'completed' ? 'teal' : goal.status === 'active' ? (goal.pace === 'behind' ? 'orange' : 'blue') : 'gray'} data-testid="goal-status">
            {goal.status === 'active' ? t(`savings.pace.${goal.pace as 'on_track' | 'behind' | 'completed'}`) : t(`savings.status.${goal.status}`)}
          </Badge>
          {goal.status !== 'completed' && (
            <Menu position="bottom-end">
              <Menu.Target>
                <ActionIcon variant="subtle" aria-label={t('savings.goalActions', { title: goal.title })}>
                  ⋯
                </ActionIcon>
              </Menu.Target>
              <Menu.Dropdown>
                {goal.status === 'active' && <Menu.Item onClick={() => void setStatus('paused')}>{t('savings.pause')}</Menu.Item>}
                {(goal.status === 'paused' || goal.status === 'cancelled') && <Menu.Item onClick={() => void setStatus('active')}>{t('savings.resume')}</Menu.Item>}
                {goal.status !== 'cancelled' && <Menu.Item onClick={() => void setStatus('cancelled')}>{t('savings.cancelGoal')}</Menu.Item>}
                <Menu.Item color="red" onClick={() => void action.run(() => call('savings.deleteGoal', { goalId: goal.id }))}>
                  {t('savings.deleteGoal')}
                </Menu.Item>
              </Menu.Dropdown>
            </Menu>
          )}
        </Group>
      </Group>
      <ProgressBar value={goal.percent} label={t('savings.progressOf', { title: goal.title })} />
      <Group justify="space-between" mt={6}>
        <Text size="sm" className="pp-num" data-testid="goal-amounts">
          {f.money(goal.currentAmount, goal.currency)} / {f.money(goal.targetAmount, goal.currency)} ({f.percent(goal.percent / 100, 0)})
        </Text>
        <Text size="xs" c="dimmed">
          {goal.status === 'completed' && goal.completedAt
            ? t('savings.completedOn', { date: f.date(goal.completedAt) })
            : t('savings.daysLeft', { count: Math.max(0, goal.daysLeft ?? 0), date: f.date(goal.endDate) })}
        </Text>
      </Group>
      {open && goal.dailyNeeded > 0 && (
        <Text size="xs" c="dimmed">
          {t('savings.dailyNeeded', { amount: f.money(goal.dailyNeeded, goal.currency) })}
        </Text>
      )}
      {open && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void contribute(1);
          }}
        >
          <Group mt="sm" gap="xs" align="flex-start">
            <NumberField size="xs" field={amount} aria-label={t('savings.contribution', { title: goal.title })} placeholder={t('savings.amountPlaceholder')} w={140} />
            <Button size="xs" type="submit" loading={action.busy} disabled={amount.text.trim() === ''}>
              {t('savings.addMoney')}
            </Button>
            <Button size="xs" variant="default" onClick={() => void contribute(-1)} disabled={amount.text.trim() === '' || action.busy}>
              {t('savings.withdraw')}
            </Button>
          </Group>
        </form>
      )}
      {action.error && (
        <Text size="sm" c="red" role="alert" mt={4}>
          {errorText(action.error)}
        </Text>
      )}
    </section>
  );
}

function GoalEditor({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const assets = useAssets();
  const toast = useRewardToast();
  const [title, setTitle] = useState('');
  const [currency, setCurrency] = useState<string | null>(null);
  const [end, setEnd] = useState(toDateInput(addDays(Date.now(), 90)));
  const [category, setCategory] = useState<string>('other');
  const [priority, setPriority] = useState<string>('medium');
  const [description, setDescription] = useState('');
  const [isPublic, setIsPublic] = useState(false);
  const { run, busy, error } = useAction();
  const cur = currency ?? assets.baseCurrency;
  const target = useNumberField({ kind: 'money', currency: cur, decimals: currencyDigits(cur), sign: 'positive' });
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const endDate = fromDateInput(end);
    if (endDate === null || !checkFields(target)) return;
    const goal = await run(() =>
      call('savings.createGoal', {
        title: title.trim(),
        targetAmount: target.value ?? 0,
        currency: cur,
        endDate: endDate + 86_400_000 - 1,
        category: category as Goal['category'],
        priority: priority as Goal['priority'],
        isPublic,
        description: description || undefined,
      }),
    );
    if (goal) {
      toast(goal.rewards);
      onClose();
    }
  };
  const fieldErr = (field: string) => (error && error.field === field ? errorText(error) : null);
  const general = error && !['title', 'targetAmount', 'endDate', 'currency'].includes(error.field ?? '') && error.code !== 3003 ? errorText(error) : null;
  return (
    <Modal opened onClose={onClose} title={t('savings.newGoal')}>
      <form onSubmit={submit}>
        <Stack gap="sm">
          <TextInput label={t('savings.goalTitle')} placeholder={t('savings.goalTitlePlaceholder')} value={title} onChange={(e) => setTitle(e.currentTarget.value)} required maxLength={100} error={fieldErr('title')} data-autofocus />
          <Group grow align="flex-start">
            <NumberField field={target} label={t('savings.target')} required error={fieldErr('targetAmount') ?? (error?.code === 3003 ? errorText(error) : null)} />
            <Select label={t('assets.currency')} data={CURRENCIES} value={cur} onChange={setCurrency} searchable allowDeselect={false} />
          </Group>
          <Group grow align="flex-start">
            <TextInput type="date" label={t('savings.endDate')} value={end} onChange={(e) => setEnd(e.currentTarget.value)} required error={fieldErr('endDate')} />
            <Select label={t('savings.category')} data={GOAL_CATEGORIES.map((c) => ({ value: c, label: t(`savings.categories.${c}`) }))} value={category} onChange={(v) => v && setCategory(v)} allowDeselect={false} />
            <Select
              label={t('savings.priority')}
              data={(['low', 'medium', 'high'] as const).map((p) => ({ value: p, label: t(`savings.priorities.${p}`) }))}
              value={priority}
              onChange={(v) => v && setPriority(v)}
              allowDeselect={false}
            />
          </Group>
          <Textarea label={t('assets.description')} value={description} onChange={(e) => setDescription(e.currentTarget.value)} maxLength={1000} autosize minRows={2} />
          <Checkbox label={t('savings.isPublic')} description={t('savings.isPublicHint')} checked={isPublic} onChange={(e) => setIsPublic(e.currentTarget.checked)} />
          <FormActions error={general} onCancel={onClose} busy={busy} disabled={!title.trim() || target.text.trim() === ''} submitLabel={t('savings.createGoal')} />
        </Stack>
      </form>
    </Modal>
  );
}

/* ------------------------------------------------------------------ market */

function MarketTab() {
  const { t } = useTranslation();
  const f = useFormat();
  const market = useApi('savings.getMarket', {});
  const [selected, setSelected] = useState<string | null>(null);
  const stockId = selected ?? market.data?.stocks[0]?.id ?? null;
  return (
    <div className="pp-grid pp-grid-main">
      <section className="pp-card" aria-label={t('savings.stocks')}>
        <ErrorNote error={market.error} onRetry={market.reload} />
        {market.data && (
          <Text size="xs" c="dimmed" mb="xs">
            {t('savings.pricesAsOf', { time: f.date(market.data.asOf, 'datetime'), minutes: market.data.stepMinutes })}
          </Text>
        )}
        {!market.data ? (
          <Skeleton h={300} />
        ) : (
          <Table highlightOnHover aria-label={t('savings.stocks')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('savings.stock')}</Table.Th>
                <Table.Th>{t('savings.sector')}</Table.Th>
                <Table.Th ta="right">{t('savings.price')}</Table.Th>
                <Table.Th ta="right">{t('savings.change24h')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {market.data.stocks.map((s) => (
                <Table.Tr key={s.id} data-selected={s.id === stockId || undefined} bg={s.id === stockId ? 'var(--mantine-primary-color-light)' : undefined}>
                  <Table.Td>
                    <Button variant="subtle" size="compact-sm" onClick={() => setSelected(s.id)} aria-pressed={s.id === stockId} aria-label={t('savings.selectStock', { name: s.name, id: s.id })}>
                      <strong>{s.id}</strong>&nbsp;
                      <Text span size="sm" c="dimmed">
                        {s.name}
                      </Text>
                    </Button>
                  </Table.Td>
                  <Table.Td>{t(`savings.sectors.${s.sector}`, { defaultValue: s.sector })}</Table.Td>
                  <Table.Td ta="right" className="pp-num">
                    {f.number(s.price, { minimumFractionDigits: 2, maximumFractionDigits: 2 })}
                  </Table.Td>
                  <Table.Td ta="right" className={`pp-num ${s.change >= 0 ? 'pp-income' : 'pp-expense'}`}>
                    {f.percent(s.changePercent / 100, 2)}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </section>
      {stockId && <StockPanel key={stockId} stockId={stockId} />}
    </div>
  );
}

function StockPanel({ stockId }: { stockId: string }) {
  const { t } = useTranslation();
  const f = useFormat();
  const errorText = useErrorText();
  const toast = useRewardToast();
  const [range, setRange] = useState<'day' | 'week' | 'month' | 'year'>('day');
  const history = useApi('savings.getStockHistory', { stockId, range });
  const positions = useApi('savings.getPositions', {});
  const quantity = useNumberField({ kind: 'whole', min: 1, max: MAX_TRADE_QUANTITY }, '1');
  const trade = useAction();
  const held = positions.data?.positions.find((p) => p.stockId === stockId)?.quantity ?? 0;
  const run = async (kind: 'buy' | 'sell') => {
    if (!checkFields(quantity) || quantity.value === null) return;
    const q = quantity.value;
    const result = await trade.run(() => (kind === 'buy' ? call('savings.buyStock', { stockId, quantity: q }) : call('savings.sellStock', { stockId, quantity: q })));
    if (result) {
      notifications.show({ color: 'teal', message: t(kind === 'buy' ? 'savings.bought' : 'savings.sold', { quantity: q, stock: stockId, price: f.number(result.trade.price, { maximumFractionDigits: 2 }) }) });
      toast(result.rewards);
    }
  };
  const err = trade.error;
  const errData = err?.data as { maxQuantity?: number; held?: number } | null;
  const message = err ? (err.code === 4003 ? t('savings.notEnoughCoins', { max: errData?.maxQuantity ?? 0 }) : err.code === 409 && errData?.held !== undefined ? t('savings.notEnoughShares', { held: errData.held }) : errorText(err)) : null;
  const h = history.data;
  return (
    <section className="pp-card" aria-label={t('savings.stockPanel', { id: stockId })}>
      <Group justify="space-between" mb="xs">
        <div>
          <Title order={2} size="h4">
            {h?.name ?? stockId}
          </Title>
          {h && (
            <Text size="sm" className={h.change >= 0 ? 'pp-income' : 'pp-expense'}>
              {f.number(h.close, { maximumFractionDigits: 2 })} ({f.percent(h.changePercent / 100, 2)})
            </Text>
          )}
        </div>
        <SegmentedControl
          size="xs"
          aria-label={t('savings.chartRange')}
          value={range}
          onChange={(v) => setRange(v as typeof range)}
          data={(['day', 'week', 'month', 'year'] as const).map((r) => ({ value: r, label: t(`savings.ranges.${r}`) }))}
        />
      </Group>
      {h ? (
        <Chart
          label={t('savings.priceChart', { id: stockId })}
          className="pp-chart pp-chart-small"
          option={{
            tooltip: { trigger: 'axis' },
            grid: { left: 4, right: 8, top: 10, bottom: 4, containLabel: true },
            xAxis: { type: 'category', data: h.points.map((p) => (range === 'day' ? new Date(p.time).toLocaleTimeString(f.locale, { hour: '2-digit', minute: '2-digit' }) : f.date(p.time, 'short'))) },
            yAxis: { type: 'value', scale: true },
            series: [{ type: 'line', name: stockId, showSymbol: false, data: h.points.map((p) => p.price), itemStyle: { color: h.change >= 0 ? '#12b886' : '#fa5252' }, areaStyle: { opacity: 0.1 } }],
          }}
        />
      ) : (
        <Skeleton className="pp-chart pp-chart-small" />
      )}
      <Text size="sm" mt="sm">
        {t('savings.youHold', { count: held })}
      </Text>
      <Group mt="xs" gap="xs" align="flex-end">
        <NumberField field={quantity} label={t('savings.quantity')} w={120} />
        <Button onClick={() => void run('buy')} loading={trade.busy} disabled={quantity.text.trim() === ''}>
          {t('savings.buy')}
        </Button>
        <Button variant="default" onClick={() => void run('sell')} disabled={quantity.text.trim() === '' || trade.busy || held === 0}>
          {t('savings.sell')}
        </Button>
      </Group>
      {message && (
        <Text size="sm" c="red" role="alert" mt="xs">
          {message}
        </Text>
      )}
    </section>
  );
}

/* ------------------------------------------------------------------ portfolio */

function PortfolioTab() {
  const { t } = useTranslation();
  const f = useFormat();
  const [page, setPage] = useState(1);
  const positions = useApi('savings.getPositions', { includeClosed: true });
  const wallet = useApi('savings.getWallet', { page, pageSize: 10 });
  const totals = positions.data?.totals;
  const coins = (n: number) => f.number(n, { maximumFractionDigits: 2 });
  const signed = (n: number) => f.number(n, { maximumFractionDigits: 2, signDisplay: 'exceptZero' });
  return (
    <Stack>
      <ErrorNote error={positions.error ?? wallet.error} />
      <section className="pp-grid pp-grid-4" aria-label={t('savings.portfolioTotals')}>
        {(
          [
            ['cash', totals?.cash],
            ['marketValue', totals?.marketValue],
            ['unrealized', totals?.unrealizedProfit],
            ['totalValue', totals?.totalValue],
          ] as const
        ).map(([key, value]) => (
          <div className="pp-card" key={key}>
            <div className="pp-stat-label">{t(`savings.totals.${key}`)}</div>
            <div className={`pp-stat-value ${key === 'unrealized' && value !== undefined ? (value >= 0 ? 'pp-income' : 'pp-expense') : ''}`}>{value === undefined ? '…' : key === 'unrealized' ? signed(value) : coins(value)}</div>
          </div>
        ))}
      </section>
      <section className="pp-card" aria-labelledby="pf-positions">
        <Title order={2} size="h5" id="pf-positions" mb="xs">
          {t('savings.positions')}
        </Title>
        {positions.data && positions.data.positions.length === 0 ? (
          <Empty>{t('savings.noPositions')}</Empty>
        ) : (
          <Table aria-labelledby="pf-positions">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('savings.stock')}</Table.Th>
                <Table.Th ta="right">{t('savings.quantity')}</Table.Th>
                <Table.Th ta="right">{t('savings.averageCost')}</Table.Th>
                <Table.Th ta="right">{t('savings.price')}</Table.Th>
                <Table.Th ta="right">{t('savings.marketValue')}</Table.Th>
                <Table.Th ta="right">{t('savings.profit')}</Table.Th>
                <Table.Th ta="right">{t('savings.realized')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {positions.data?.positions.map((p) => (
                <Table.Tr key={p.stockId}>
                  <Table.Td>
                    <strong>{p.stockId}</strong> <Text span size="sm" c="dimmed">{p.name}</Text>
                  </Table.Td>
                  <Table.Td ta="right" className="pp-num">{p.quantity}</Table.Td>
                  <Table.Td ta="right" className="pp-num">{coins(p.averageCost)}</Table.Td>
                  <Table.Td ta="right" className="pp-num">{coins(p.price)}</Table.Td>
                  <Table.Td ta="right" className="pp-num">{coins(p.marketValue)}</Table.Td>
                  <Table.Td ta="right" className={`pp-num ${p.unrealizedProfit >= 0 ? 'pp-income' : 'pp-expense'}`}>
                    {signed(p.unrealizedProfit)} ({f.percent(p.unrealizedPercent / 100, 1)})
                  </Table.Td>
                  <Table.Td ta="right" className={`pp-num ${p.realizedProfit >= 0 ? 'pp-income' : 'pp-expense'}`}>{signed(p.realizedProfit)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </section>
      <section className="pp-card" aria-labelledby="pf-wallet">
        <Title order={2} size="h5" id="pf-wallet" mb="xs">
          {t('savings.walletHistory')}
        </Title>
        {wallet.data && (
          <Text size="sm" c="dimmed" mb="xs">
            {t('savings.received', {
              total: coins(wallet.data.received.total),
              welcome: coins(wallet.data.received.welcome),
              saving: coins(wallet.data.received.savingDays),
              goals: coins(wallet.data.received.goalsCompleted),
              achievements: coins(wallet.data.received.achievements),
            })}
          </Text>
        )}
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('records.date')}</Table.Th>
              <Table.Th>{t('savings.entry')}</Table.Th>
              <Table.Th ta="right">{t('savings.change')}</Table.Th>
              <Table.Th ta="right">{t('savings.balanceAfter')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {wallet.data?.history.list.map((e) => (
              <Table.Tr key={e.id}>
                <Table.Td>{f.date(e.createdAt, 'datetime')}</Table.Td>
                <Table.Td>
                  {e.kind === 'buy' || e.kind === 'sell'
                    ? t(`savings.entries.${e.kind}`, { quantity: e.quantity, stock: e.stockId, price: coins(e.price) })
                    : t(`savings.reasons.${(e.reason || 'welcome') as 'welcome'}`, { defaultValue: e.note })}
                </Table.Td>
                <Table.Td ta="right" className={`pp-num ${e.amount >= 0 ? 'pp-income' : 'pp-expense'}`}>{signed(e.amount)}</Table.Td>
                <Table.Td ta="right" className="pp-num">{e.balance === undefined ? "" : coins(e.balance)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        {wallet.data && wallet.data.history.total > 10 && (
          <Group justify="center" mt="sm">
            <Pagination total={Math.ceil(wallet.data.history.total / 10)} value={page} onChange={setPage} size="sm" getControlProps={(c) => ({ 'aria-label': t(`common.page.${c}`) })} />
          </Group>
        )}
      </section>
    </Stack>
  );
}

/* ------------------------------------------------------------------ achievements */

function AchievementsTab() {
  const { t } = useTranslation();
  const f = useFormat();
  const achievements = useApi('savings.getAchievements', {});
  const summary = achievements.data?.summary;
  return (
    <Stack>
      <ErrorNote error={achievements.error} onRetry={achievements.reload} />
      {summary && (
        <Group gap="xl">
          <Text>{t('savings.unlocked', { unlocked: summary.unlocked, total: summary.total })}</Text>
          <Text>{t('savings.coinsEarned', { coins: f.number(summary.coinsEarned, { maximumFractionDigits: 2 }) })}</Text>
          <Text>{t('savings.streak', { current: summary.bookkeepingStreak, longest: summary.longestBookkeepingStreak })}</Text>
        </Group>
      )}
      {!achievements.data ? (
        <Skeleton h={300} />
      ) : (
        <ul className="pp-badge-grid pp-plain-list" aria-label={t('savings.tabs.achievements')}>
          {achievements.data.list.map((a) => (
            <li key={a.id} className="pp-card pp-badge" data-testid={`achievement-${a.id}`}>
              <div className="pp-badge-medal" data-unlocked={a.completed} aria-hidden="true">
                {a.completed ? '★' : `${Math.floor((Math.min(a.progress, a.target) / a.target) * 100)}%`}
              </div>
              <div style={{ minWidth: 0, flex: 1 }}>
                <Text fw={600} size="sm">
                  {t(`savings.achievements.${a.id}.title` as 'savings.achievements.first_record.title', { defaultValue: a.title })}
                </Text>
                <Text size="xs" c="dimmed" mb={6}>
                  {t(`savings.achievements.${a.id}.description` as 'savings.achievements.first_record.description', { defaultValue: a.description })}
                </Text>
                <ProgressBar value={(Math.min(a.progress, a.target) / a.target) * 100} label={t('savings.achievementProgress', { progress: Math.min(a.progress, a.target), target: a.target })} />
                <Text size="xs" mt={4}>
                  {a.completed && a.unlockedAt ? t('savings.unlockedOn', { date: f.date(a.unlockedAt) }) : t('savings.achievementProgress', { progress: Math.min(a.progress, a.target), target: a.target })}
                  {' · '}
                  {t('savings.rewardCoins', { coins: f.number(a.reward, { maximumFractionDigits: 2 }) })}
                </Text>
              </div>
            </li>
          ))}
        </ul>
      )}
    </Stack>
  );
}

/* ------------------------------------------------------------------ leaderboard */

function LeaderboardTab() {
  const { t } = useTranslation();
  const f = useFormat();
  const [type, setType] = useState<'savings' | 'goals' | 'portfolio' | 'streak' | 'achievements'>('savings');
  const [period, setPeriod] = useState<'week' | 'month' | 'all'>('week');
  const board = useApi('savings.getLeaderboard', { type, period, limit: 20 });
  const prefs = useApi('savings.getPreferences', {});
  const action = useAction();
  const score = (n: number) => (type === 'portfolio' ? f.percent(n / 100, 1) : f.number(n, { maximumFractionDigits: 2 }));
  return (
    <Stack>
      <Group align="flex-end">
        <Select label={t('savings.boardType')} value={type} onChange={(v) => v && setType(v as typeof type)} allowDeselect={false} data={(['savings', 'goals', 'portfolio', 'streak', 'achievements'] as const).map((v) => ({ value: v, label: t(`savings.boards.${v}`) }))} />
        <Select label={t('savings.period')} value={period} onChange={(v) => v && setPeriod(v as typeof period)} allowDeselect={false} data={(['week', 'month', 'all'] as const).map((v) => ({ value: v, label: t(`savings.periods.${v}`) }))} />
        <Switch
          label={t('savings.optIn')}
          checked={prefs.data?.leaderboardOptIn ?? false}
          disabled={!prefs.data || action.busy}
          onChange={(e) => void action.run(() => call('savings.setPreferences', { leaderboardOptIn: e.currentTarget.checked }))}
          mb={8}
        />
      </Group>
      <Text size="xs" c="dimmed">
        {t('savings.optInHint')}
      </Text>
      <ErrorNote error={board.error ?? action.error} />
      <section className="pp-card">
        {board.data && board.data.entries.length === 0 ? (
          <Empty>{t('savings.boardEmpty')}</Empty>
        ) : (
          <Table aria-label={t('savings.tabs.leaderboard')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={70}>{t('savings.rank')}</Table.Th>
                <Table.Th>{t('auth.username')}</Table.Th>
                <Table.Th>{t('savings.publicGoals')}</Table.Th>
                <Table.Th ta="right">{t('savings.score')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {board.data?.entries.map((e) => (
                <Table.Tr key={`${e.rank}-${e.username}`} fw={e.isMe ? 700 : undefined}>
                  <Table.Td>#{e.rank}</Table.Td>
                  <Table.Td>
                    {e.username} {e.isMe && <Badge size="xs">{t('savings.you')}</Badge>}
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs" c="dimmed">
                      {e.publicGoals.map((g) => `${g.title} ${f.percent(g.percent / 100, 0)}`).join(' · ')}
                    </Text>
                  </Table.Td>
                  <Table.Td ta="right" className="pp-num">
                    {score(e.score)}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
        {board.data && (
          <Text size="sm" mt="sm">
            {board.data.me.optedIn
              ? t('savings.yourRank', { rank: board.data.me.rank, participants: board.data.participants, score: score(board.data.me.score) })
              : t('savings.wouldRank', { rank: board.data.me.rank, score: score(board.data.me.score) })}
          </Text>
        )}
      </section>
    </Stack>
  );
}
