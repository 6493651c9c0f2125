import { useCallback, useEffect, useMemo, useState } from 'react';
import { Button, Group, Skeleton, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ApiCallError, call } from '../../api/client';
import { Empty, ErrorNote, PageHeader } from '../../components/common';
import { useDataVersion } from '../../lib/data';
import { useFormat } from '../../lib/format';
import { useAssets, type LedgerRecord } from '../../lib/ledger';
import { Link } from '../../lib/router';
import { balanceBefore, registerRows } from './register';

const PAGE_SIZE = 100;

/**
 * One asset's register (Assets → an asset's name, `/assets?asset=<id>`): its records newest
 * first, each with what it did to the balance and the balance after it, down to the opening
 * balance. Pages of 100 are read in order ("Show more"), since each balance follows from the
 * ones above it.
 */
export function AssetRegister({ id }: { id: string }) {
  const { t } = useTranslation();
  const f = useFormat();
  const assets = useAssets();
  const asset = assets.byId.get(id);
  const version = useDataVersion();
  const [records, setRecords] = useState<LedgerRecord[]>([]);
  const [total, setTotal] = useState<number | null>(null);
  const [error, setError] = useState<ApiCallError | null>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(
    async (page: number) => {
      setBusy(true);
      try {
        const result = await call('accounting.query', { asset: id, page, pageSize: PAGE_SIZE });
        setRecords((before) => (page === 1 ? result.list : [...before, ...result.list]));
        setTotal(result.total);
        setError(null);
      } catch (err) {
        setError(err instanceof ApiCallError ? err : new ApiCallError(500, String(err)));
      } finally {
        setBusy(false);
      }
    },
    [id],
  );
  // A change anywhere (a record edited, the asset's opening balance): read the register again from the top.
  useEffect(() => {
    void load(1);
  }, [load, version]);

  const rows = useMemo(() => (asset ? registerRows(records, id, asset.currency, asset.balance) : []), [records, asset, id]);
  const complete = total !== null && records.length >= total;
  const opening = complete && asset ? (balanceBefore(rows, asset.currency) ?? asset.balance) : null;

  if (assets.data && !asset) {
    return (
      <div className="pp-page">
        <PageHeader title={t('assets.register.missing')} />
        <Link href="/assets">{t('assets.register.back')}</Link>
      </div>
    );
  }
  return (
    <div className="pp-page">
      <PageHeader title={asset?.name ?? t('assets.title')}>
        <Link href="/assets">{t('assets.register.back')}</Link>
      </PageHeader>
      <div className="pp-card" style={{ marginBottom: 16 }}>
        {asset ? (
          <Group justify="space-between" wrap="wrap">
            <Text c="dimmed" size="sm">
              {t(`assets.types.${asset.type as 'cash'}`)} · {asset.currency}
            </Text>
            <div>
              <div className="pp-stat-label">{t('assets.balance')}</div>
              <div className={`pp-stat-value pp-num ${asset.balance < 0 ? 'pp-expense' : ''}`} data-testid="register-balance">
                {f.money(asset.balance, asset.currency)}
              </div>
            </div>
          </Group>
        ) : (
          <Skeleton h={48} />
        )}
      </div>
      <ErrorNote error={error ?? assets.error} onRetry={() => void load(1)} />
      <section className="pp-card" aria-label={t('assets.register.title', { name: asset?.name ?? '' })}>
        {total === null || !asset ? (
          <Skeleton h={200} />
        ) : total === 0 ? (
          <Empty>{t('assets.register.empty')}</Empty>
        ) : (
          <Table verticalSpacing="xs" aria-label={t('assets.register.title', { name: asset.name })} data-testid="asset-register">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('records.date')}</Table.Th>
                <Table.Th>{t('records.description')}</Table.Th>
                <Table.Th ta="right">{t('assets.register.change')}</Table.Th>
                <Table.Th ta="right">{t('assets.register.balanceAfter')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map(({ record, change, balance }) => (
                <Table.Tr key={record.id} data-testid="register-row">
                  <Table.Td className="pp-num">{f.date(record.date)}</Table.Td>
                  <Table.Td>
                    <Text size="sm" truncate>
                      {record.description || (record.type === 'transfer' ? t('common.transfer') : record.category)}
                    </Text>
                    <Text size="xs" c="dimmed" truncate>
                      {record.type === 'transfer' ? `${record.assetName} → ${record.toAssetName ?? ''}` : record.category}
                    </Text>
                  </Table.Td>
                  <Table.Td ta="right" className={`pp-num ${change < 0 ? 'pp-expense' : change > 0 ? 'pp-income' : ''}`}>
                    {f.money(change, asset.currency, { sign: true })}
                  </Table.Td>
                  <Table.Td ta="right" className="pp-num" data-testid="register-balance-after">
                    {f.money(balance, asset.currency)}
                  </Table.Td>
                </Table.Tr>
              ))}
              {opening !== null && (
                <Table.Tr data-testid="register-opening">
                  <Table.Td />
                  <Table.Td>
                    <Text size="sm" c="dimmed">
                      {t('assets.register.opening')}
                    </Text>
                  </Table.Td>
                  <Table.Td />
                  <Table.Td ta="right" className="pp-num">
                    {f.money(opening, asset.currency)}
                  </Table.Td>
                </Table.Tr>
              )}
            </Table.Tbody>
          </Table>
        )}
        {!complete && total !== null && total > 0 && (
          <Button variant="default" mt="sm" loading={busy} onClick={() => void load(Math.floor(records.length / PAGE_SIZE) + 1)}>
            {t('assets.register.more', { shown: f.number(records.length), total: f.number(total) })}
          </Button>
        )}
      </section>
    </div>
  );
}
