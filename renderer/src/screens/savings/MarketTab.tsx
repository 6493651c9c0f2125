import { useState } from 'react';
import { Button, Skeleton, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ErrorNote } from '../../components/common';
import { useApi } from '../../lib/data';
import { useFormat } from '../../lib/format';
import { StockPanel } from './StockPanel';
import { marketTone } from './market-tone';

export function MarketTab() {
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
                    <Button
                      variant="subtle"
                      size="compact-sm"
                      onClick={() => setSelected(s.id)}
                      aria-pressed={s.id === stockId}
                      aria-label={t('savings.selectStock', { name: s.name, id: s.id })}
                    >
                      {/* The name first, as in the label (label in name, WCAG 2.5.3). */}
                      <strong>{s.name}</strong>&nbsp;
                      <Text span size="sm" c="dimmed">
                        ({s.id})
                      </Text>
                    </Button>
                  </Table.Td>
                  <Table.Td>{t(`savings.sectors.${s.sector}`, { defaultValue: s.sector })}</Table.Td>
                  <Table.Td ta="right" className="pp-num">
                    {f.number(s.price, { minimumFractionDigits: 2, maximumFractionDigits: 2 })}
                  </Table.Td>
                  <Table.Td ta="right" className={`pp-num ${marketTone(s.change)}`}>
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
