import { useEffect, useState, type FormEvent } from 'react';
import { Alert, Badge, Button, Checkbox, Group, Menu, Modal, Select, Skeleton, Stack, Table, Text, TextInput, Textarea, ActionIcon } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { call, type ParamsOf } from '../api/client';
import { Empty, ErrorNote, PageHeader, FormActions } from '../components/common';
import { Icon } from '../components/icons';
import { checkFields, NumberField, useNumberField } from '../components/NumberField';
import { useAction, useApi } from '../lib/data';
import { useErrorText } from '../lib/errors';
import { currencyDigits, useFormat } from '../lib/format';
import { numberText } from '../lib/parse-number';
import { ASSET_TYPES, useAssets, type Asset } from '../lib/ledger';
import { navigate, useSearchParam } from '../lib/router';
import { CURRENCIES } from '../lib/currencies';

export default function AssetsPage() {
  const { t } = useTranslation();
  const f = useFormat();
  const assets = useAssets();
  const stats = useApi('stats.getAssetStats', {});
  const wantsNew = useSearchParam('new') === '1';
  const [editing, setEditing] = useState<Asset | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Asset | null>(null);
  const action = useAction();
  const errorText = useErrorText();

  useEffect(() => {
    if (wantsNew) {
      setEditing('new');
      navigate('/assets', { replace: true });
    }
  }, [wantsNew]);

  const setStatus = (asset: Asset, status: 'normal' | 'archived') =>
    action.run(() => call('asset.update', { id: asset.id, status, expectedUpdatedAt: asset.updatedAt }));
  const makeDefault = (asset: Asset) => action.run(() => call('asset.update', { id: asset.id, isDefault: true }));
  const base = stats.data?.currency ?? assets.baseCurrency;

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
      {stats.data && stats.data.missingRates.length > 0 && (
        <Alert color="yellow" mb="md">
          {t('assets.missingRates', { pairs: stats.data.missingRates.map((m) => `${m.from}→${m.to}`).join(', ') })}
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
                <Table.Th w={60}>
                  <span className="pp-visually-hidden">{t('assets.actions')}</span>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {assets.list.map((a) => (
                <Table.Tr key={a.id} data-testid={`asset-row-${a.name}`}>
                  <Table.Td>
                    <Group gap="xs">
                      <Text fw={500}>{a.name}</Text>
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
                      <Text size="xs" c="dimmed" truncate maw={360}>
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
                    <Menu position="bottom-end" withinPortal>
                      <Menu.Target>
                        <ActionIcon variant="subtle" aria-label={t('assets.actionsFor', { name: a.name })}>
                          ⋯
                        </ActionIcon>
                      </Menu.Target>
                      <Menu.Dropdown>
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
                      </Menu.Dropdown>
                    </Menu>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </section>
      {editing && <AssetEditor asset={editing === 'new' ? null : editing} baseCurrency={assets.baseCurrency} onClose={() => setEditing(null)} />}
      <Modal opened={deleting !== null} onClose={() => setDeleting(null)} title={t('assets.deleteTitle', { name: deleting?.name ?? '' })}>
        <Text size="sm" mb="md">
          {t('assets.deleteText')}
        </Text>
        {action.error && (
          <Text c="red" size="sm" role="alert" mb="sm">
            {errorText(action.error)}
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setDeleting(null)}>
            {t('common.cancel')}
          </Button>
          <Button
            color="red"
            loading={action.busy}
            onClick={async () => {
              if (!deleting) return;
              const ok = await action.run(() => call('asset.delete', { id: deleting.id }));
              if (ok) {
                notifications.show({ color: 'teal', message: t('assets.deleted') });
                setDeleting(null);
              }
            }}
          >
            {t('assets.confirmDelete')}
          </Button>
        </Group>
      </Modal>
    </div>
  );
}

function AssetEditor({ asset, baseCurrency, onClose }: { asset: Asset | null; baseCurrency: string; onClose: () => void }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const [name, setName] = useState(asset?.name ?? '');
  const [type, setType] = useState<string>(asset?.type ?? 'debit_card');
  const [currency, setCurrency] = useState<string>(asset?.currency ?? baseCurrency);
  const opening = useNumberField({ kind: 'money', currency, decimals: currencyDigits(currency), sign: 'any', optional: true }, numberText(asset?.openingBalance ?? 0));
  const [description, setDescription] = useState(asset?.description ?? '');
  const [isDefault, setIsDefault] = useState(asset?.isDefault ?? false);
  const { run, busy, error } = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!checkFields(opening)) return;
    const balance = opening.value ?? 0;
    const ok = asset
      ? await run(() => {
          const patch: ParamsOf<'asset.update'> = { id: asset.id, name: name.trim(), type, description, expectedUpdatedAt: asset.updatedAt };
          if (balance !== asset.openingBalance) patch.openingBalance = balance;
          if (currency !== asset.currency) patch.currency = currency;
          if (isDefault && !asset.isDefault) patch.isDefault = true;
          return call('asset.update', patch);
        })
      : await run(() => call('asset.create', { name: name.trim(), type, currency, balance, description: description || undefined, isDefault: isDefault || undefined }));
    if (ok) {
      notifications.show({ color: 'teal', message: asset ? t('assets.updated') : t('assets.created') });
      onClose();
    }
  };
  const fieldErr = (field: string) => (error && error.field === field ? errorText(error) : null);
  const general = error && !['name', 'type', 'currency', 'balance', 'openingBalance', 'description'].includes(error.field ?? '') ? errorText(error) : null;
  return (
    <Modal opened onClose={onClose} title={asset ? t('assets.editTitle') : t('assets.new')}>
      <form onSubmit={submit}>
        <Stack gap="sm">
          <TextInput label={t('assets.name')} value={name} onChange={(e) => setName(e.currentTarget.value)} required maxLength={100} error={fieldErr('name')} data-autofocus />
          <Group grow align="flex-start">
            <Select label={t('assets.type')} data={ASSET_TYPES.map((v) => ({ value: v, label: t(`assets.types.${v}`) }))} value={type} onChange={(v) => v && setType(v)} allowDeselect={false} error={fieldErr('type') ?? (error?.code === 2003 ? errorText(error) : null)} />
            <Select label={t('assets.currency')} data={CURRENCIES} value={currency} onChange={(v) => v && setCurrency(v)} searchable allowDeselect={false} error={fieldErr('currency')} disabled={!!asset && (asset.recordCount ?? 0) > 0} />
          </Group>
          <NumberField
            field={opening}
            label={t('assets.openingBalance')}
            description={t('assets.openingHint')}
            error={fieldErr('balance') ?? fieldErr('openingBalance') ?? (error?.code === 2002 ? errorText(error) : null)}
          />
          <Textarea label={t('assets.description')} value={description} onChange={(e) => setDescription(e.currentTarget.value)} maxLength={1000} autosize minRows={2} />
          <Checkbox label={t('assets.isDefault')} checked={isDefault} onChange={(e) => setIsDefault(e.currentTarget.checked)} disabled={asset?.isDefault} />
          <FormActions error={general} onCancel={onClose} busy={busy} disabled={!name.trim()} submitLabel={asset ? t('common.save') : t('assets.create')} />
        </Stack>
      </form>
    </Modal>
  );
}
