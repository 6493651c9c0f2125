import { useEffect, useState } from 'react';
import { Alert, Badge, Button, Group, Menu, Skeleton, Stack, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { call } from '../../api/client';
import { ActionsHeader, Empty, ErrorNote, PageHeader } from '../../components/common';
import { Icon } from '../../components/icons';
import { useAction, useApi } from '../../lib/data';
import { useFormat } from '../../lib/format';
import { useAssets, type Asset } from '../../lib/ledger';
import { Link, navigate, useSearchParam } from '../../lib/router';
import { rateFormLink } from '../../components/MissingRates';
import { AssetEditor } from './AssetEditor';
import { DeleteAssetDialog } from './DeleteAssetDialog';
import { AssetRegister } from './AssetRegister';
import { RowMenu } from '../../components/RowMenu';

export function AssetsPage() {
  const registerOf = useSearchParam('asset');
  return registerOf ? <AssetRegister id={registerOf} /> : <AssetList />;
}

function AssetList() {
  const { t } = useTranslation();
  const f = useFormat();
  const assets = useAssets();
  const stats = useApi('stats.getAssetStats', {});
  const wantsNew = useSearchParam('new') === '1';
  const [editing, setEditing] = useState<Asset | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Asset | null>(null);
  const action = useAction();

  useEffect(() => {
    if (wantsNew) {
      setEditing('new');
      navigate('/assets', { replace: true });
    }
  }, [wantsNew]);

  const setStatus = (asset: Asset, status: 'normal' | 'archived') => action.run(() => call('asset.update', { id: asset.id, status, expectedUpdatedAt: asset.updatedAt }));
  const makeDefault = (asset: Asset) => action.run(() => call('asset.update', { id: asset.id, isDefault: true }));
  const base = stats.data?.currency ?? assets.baseCurrency;
  const missingRates = stats.data?.missingRates ?? [];
  const firstMissing = missingRates.at(0);

  return (
    <div className="pp-page">
      <PageHeader title={t('assets.title')}>
        <Button leftSection={<Icon name="plus" size={16} />} onClick={() => setEditing('new')}>
          {t('assets.new')}
        </Button>
      </PageHeader>
      <ErrorNote error={assets.error} onRetry={assets.reload} />
      <ErrorNote error={action.error} />
      <section className="pp-grid pp-grid-4" aria-label={t('assets.totals')} style={{ marginBottom: 16 }}>
        <div className="pp-card" data-testid="assets-net-worth">
          <div className="pp-stat-label">{t('dashboard.netWorth')}</div>
          <div className="pp-stat-value">{stats.data ? f.money(stats.data.netWorth, base) : <Skeleton h={30} />}</div>
          <Text size="xs" c="dimmed">
            {t('assets.inBase', { currency: base })}
          </Text>
        </div>
        <div className="pp-card">
          <div className="pp-stat-label">{t('assets.assets')}</div>
          <div className="pp-stat-value pp-income">{stats.data ? f.money(stats.data.assets, base) : <Skeleton h={30} />}</div>
        </div>
        <div className="pp-card">
          <div className="pp-stat-label">{t('assets.liabilities')}</div>
          <div className="pp-stat-value pp-expense">{stats.data ? f.money(stats.data.liabilities, base) : <Skeleton h={30} />}</div>
        </div>
        <div className="pp-card">
          <div className="pp-stat-label">{t('assets.byCurrency')}</div>
          <Stack gap={2} mt={4}>
            {stats.data?.byCurrency.map((c) => (
              <Group key={c.currency} justify="space-between" gap="xs" wrap="nowrap">
                <Text size="sm" className="pp-num">
                  {f.money(c.balance, c.currency)}
                </Text>
                {c.currency !== base && (
                  <Text size="xs" c="dimmed" className="pp-num">
                    {c.converted === null ? t('assets.noRate') : `≈ ${f.money(c.converted, base)}`}
                  </Text>
                )}
              </Group>
            ))}
          </Stack>
        </div>
      </section>
      {firstMissing && (
        <Alert color="yellow" mb="md">
          {t('assets.missingRates', { pairs: missingRates.map((m) => `${m.from}→${m.to}`).join(', ') })}{' '}
          <Link href={rateFormLink(firstMissing)}>{t('records.setRate', { from: firstMissing.from, to: firstMissing.to })}</Link>
        </Alert>
      )}
      <section className="pp-card">
        {!assets.data ? (
          <Skeleton h={200} />
        ) : assets.list.length === 0 ? (
          <Empty>
            <Text mb="sm">{t('assets.none')}</Text>
            <Button onClick={() => setEditing('new')}>{t('dashboard.createAsset')}</Button>
          </Empty>
        ) : (
          <Table highlightOnHover verticalSpacing="sm" aria-label={t('assets.title')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('assets.name')}</Table.Th>
                <Table.Th>{t('assets.type')}</Table.Th>
                <Table.Th>{t('assets.currency')}</Table.Th>
                <Table.Th ta="right">{t('assets.balance')}</Table.Th>
                <ActionsHeader width={60} />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {assets.list.map((a) => (
                <Table.Tr key={a.id} data-testid={`asset-row-${a.name}`}>
                  <Table.Td className="pp-cell-fill">
                    <Group gap="xs" wrap="nowrap">
                      {/* The name opens the asset's register: its records with the balance after each. */}
                      <Link href={`/assets?asset=${encodeURIComponent(a.id)}`} className="pp-asset-link" aria-label={t('assets.register.open', { name: a.name })}>
                        <Text fw={500} truncate component="span" display="block" title={a.name}>
                          {a.name}
                        </Text>
                      </Link>
                      {a.isDefault && (
                        <Badge size="sm" variant="light">
                          {t('assets.default')}
                        </Badge>
                      )}
                      {a.status === 'archived' && (
                        <Badge size="sm" color="gray" variant="light">
                          {t('assets.archived')}
                        </Badge>
                      )}
                    </Group>
                    {a.description && (
                      <Text size="xs" c="dimmed" truncate title={a.description}>
                        {a.description}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>{t(`assets.types.${a.type}`)}</Table.Td>
                  <Table.Td>{a.currency}</Table.Td>
                  <Table.Td ta="right" className={`pp-num ${a.balance < 0 ? 'pp-expense' : ''}`} data-testid="asset-balance">
                    {f.money(a.balance, a.currency)}
                  </Table.Td>
                  <Table.Td>
                    <RowMenu label={t('assets.actionsFor', { name: a.name })} withinPortal>
                      <Menu.Item onClick={() => setEditing(a)}>{t('assets.edit')}</Menu.Item>
                      {!a.isDefault && <Menu.Item onClick={() => void makeDefault(a)}>{t('assets.makeDefault')}</Menu.Item>}
                      {a.status === 'archived' ? (
                        <Menu.Item onClick={() => void setStatus(a, 'normal')}>{t('assets.unarchive')}</Menu.Item>
                      ) : (
                        <Menu.Item onClick={() => void setStatus(a, 'archived')}>{t('assets.archive')}</Menu.Item>
                      )}
                      <Menu.Item color="red" onClick={() => setDeleting(a)}>
                        {t('assets.delete')}
                      </Menu.Item>
                    </RowMenu>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </section>
      {editing && <AssetEditor asset={editing === 'new' ? null : editing} baseCurrency={assets.baseCurrency} onClose={() => setEditing(null)} />}
      <DeleteAssetDialog asset={deleting} action={action} onClose={() => setDeleting(null)} />
    </div>
  );
}
