import { useState } from 'react';
import { Group, Stack, Table, Text, Pagination } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Empty, ErrorNote } from '../../components/common';
import { useApi } from '../../lib/data';
import { useFormat } from '../../lib/format';
import { useCoins } from './coins';
import { marketTone } from './market-tone';
import { Card } from '../../components/Card';

export function PortfolioTab() {
  const { t } = useTranslation();
  const f = useFormat();
  const [page, setPage] = useState(1);
  const positions = useApi('savings.getPositions', { includeClosed: true });
  const wallet = useApi('savings.getWallet', { page, pageSize: 10 });
  const totals = positions.data?.totals;
  const { coins, signed } = useCoins();
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
            <div className={`pp-stat-value ${key === 'unrealized' && value !== undefined ? marketTone(value) : ''}`}>
              {value === undefined ? '…' : key === 'unrealized' ? signed(value) : coins(value)}
            </div>
          </div>
        ))}
      </section>
      <Card id="pf-positions" title={t('savings.positions')}>
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
                    <strong>{p.stockId}</strong>{' '}
                    <Text span size="sm" c="dimmed">
                      {p.name}
                    </Text>
                  </Table.Td>
                  <Table.Td ta="right" className="pp-num">
                    {p.quantity}
                  </Table.Td>
                  <Table.Td ta="right" className="pp-num">
                    {coins(p.averageCost)}
                  </Table.Td>
                  <Table.Td ta="right" className="pp-num">
                    {coins(p.price)}
                  </Table.Td>
                  <Table.Td ta="right" className="pp-num">
                    {coins(p.marketValue)}
                  </Table.Td>
                  <Table.Td ta="right" className={`pp-num ${marketTone(p.unrealizedProfit)}`}>
                    {signed(p.unrealizedProfit)} ({f.percent(p.unrealizedPercent / 100, 1)})
                  </Table.Td>
                  <Table.Td ta="right" className={`pp-num ${marketTone(p.realizedProfit)}`}>
                    {signed(p.realizedProfit)}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Card>
      <Card id="pf-wallet" title={t('savings.walletHistory')}>
        {wallet.data && (
          <Text size="sm" c="dimmed" mb={4} data-testid="wallet-explained">
            {t('savings.walletNote.text', { welcome: coins(wallet.data.received.welcome) })}
          </Text>
        )}
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
                <Table.Td ta="right" className={`pp-num ${e.amount >= 0 ? 'pp-income' : 'pp-expense'}`}>
                  {signed(e.amount)}
                </Table.Td>
                <Table.Td ta="right" className="pp-num">
                  {coins(e.balance)}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        {wallet.data && wallet.data.history.total > 10 && (
          <Group justify="center" mt="sm">
            <Pagination
              total={Math.ceil(wallet.data.history.total / 10)}
              value={page}
              onChange={setPage}
              size="sm"
              getControlProps={(c) => ({ 'aria-label': t(`common.page.${c}`) })}
            />
          </Group>
        )}
      </Card>
    </Stack>
  );
}
