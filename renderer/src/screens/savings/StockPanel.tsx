import { useState } from 'react';
import { Button, Group, SegmentedControl, Skeleton, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { call } from '../../api/client';
import { Chart } from '../../charts/Chart';
import { checkFields, NumberField, useNumberField } from '../../components/NumberField';
import { useAction, useApi } from '../../lib/data';
import { useErrorText } from '../../lib/errors';
import { useFormat } from '../../lib/format';
import { useCoins } from './coins';
import { useRewardToast } from './rewards';
import { marketTone } from './market-tone';

/** Shares per trade the server accepts (savings.buyStock / sellStock: a whole number from 1 to 1,000,000). */
const MAX_TRADE_QUANTITY = 1_000_000;

export function StockPanel({ stockId }: { stockId: string }) {
  const { t } = useTranslation();
  const f = useFormat();
  const { coins } = useCoins();
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
      notifications.show({
        color: 'teal',
        message: t(kind === 'buy' ? 'savings.bought' : 'savings.sold', { quantity: q, stock: stockId, price: coins(result.trade.price) }),
      });
      toast(result.rewards);
    }
  };
  const err = trade.error;
  const errData = err?.data as { maxQuantity?: number; held?: number } | null;
  const message = err
    ? err.code === 4003
      ? t('savings.notEnoughCoins', { max: errData?.maxQuantity ?? 0 })
      : err.code === 409 && errData?.held !== undefined
        ? t('savings.notEnoughShares', { held: errData.held })
        : errorText(err)
    : null;
  const h = history.data;
  return (
    <section className="pp-card" aria-label={t('savings.stockPanel', { id: stockId })}>
      <Group justify="space-between" mb="xs">
        <div>
          <Title order={2} size="h4">
            {h?.name ?? stockId}
          </Title>
          {h && (
            <Text size="sm" className={marketTone(h.change)}>
              {coins(h.close)} ({f.percent(h.changePercent / 100, 2)})
            </Text>
          )}
        </div>
        <SegmentedControl
          size="xs"
          aria-label={t('savings.chartRange')}
          value={range}
          onChange={(v) => setRange(v)}
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
            xAxis: {
              type: 'category',
              data: h.points.map((p) => (range === 'day' ? new Date(p.time).toLocaleTimeString(f.locale, { hour: '2-digit', minute: '2-digit' }) : f.date(p.time, 'short'))),
            },
            yAxis: { type: 'value', scale: true },
            series: [
              {
                type: 'line',
                name: stockId,
                showSymbol: false,
                data: h.points.map((p) => p.price),
                itemStyle: { color: h.change >= 0 ? '#12b886' : '#fa5252' },
                areaStyle: { opacity: 0.1 },
              },
            ],
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
