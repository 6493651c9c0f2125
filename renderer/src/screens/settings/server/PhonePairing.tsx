import { useMemo, useState, type SubmitEvent } from 'react';
import { Alert, Button, Code, CopyButton, Group, Image, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import encodeQR from 'qr';
import { useTranslation } from 'react-i18next';
import { call, type ResultOf } from '../../../api/client';
import { ErrorNote } from '../../../components/common';
import { useAction, useApi } from '../../../lib/data';
import { useErrorText } from '../../../lib/errors';
import { useFormat } from '../../../lib/format';
import { useAssets } from '../../../lib/ledger';

type Added = ResultOf<'sync.addPhone'>;

/**
 * Settings → Server → Sync → Phones (docs/phone.md): pair a phone (its own CouchDB user, shown
 * once as a QR code and a link), see the paired phones with their last sync, and revoke one.
 */
export function PhonePairing() {
  const { t, i18n } = useTranslation();
  const f = useFormat();
  const errorText = useErrorText();
  const phones = useApi('sync.phones', {});
  const { baseCurrency } = useAssets();
  const [label, setLabel] = useState('');
  const [appUrl, setAppUrl] = useState(`${location.origin}/phone/`);
  const [added, setAdded] = useState<Added | null>(null);
  const action = useAction();
  const qr = useMemo(() => (added ? `data:image/svg+xml;charset=utf-8,${encodeURIComponent(encodeQR(added.link, 'svg', { ecc: 'low', border: 2 }))}` : ''), [added]);

  const add = async (event: SubmitEvent) => {
    event.preventDefault();
    const language = i18n.language === 'zh-CN' ? 'zh-CN' : 'en';
    const result = await action.run(() => call('sync.addPhone', { label: label.trim(), appUrl: appUrl.trim(), language, baseCurrency }));
    if (result) {
      setAdded(result);
      setLabel('');
      phones.reload();
    }
  };

  return (
    <Stack gap="sm" mt="md" aria-label={t('settings.phones')} component="section">
      <Title order={4}>{t('settings.phones')}</Title>
      <Text size="sm" c="dimmed">
        {t('settings.phonesHint')}
      </Text>
      {phones.error && phones.data === undefined && (
        <Alert color="yellow" role="alert">
          {errorText(phones.error)}
        </Alert>
      )}
      {phones.data && phones.data.list.length > 0 && (
        <Table aria-label={t('settings.phones')}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('settings.phoneName')}</Table.Th>
              <Table.Th>{t('settings.phonePaired')}</Table.Th>
              <Table.Th>{t('settings.phoneLastSync')}</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {phones.data.list.map((p) => (
              <Table.Tr key={p.username}>
                <Table.Td>{p.label}</Table.Td>
                <Table.Td>{f.date(p.pairedAt, 'datetime')}</Table.Td>
                <Table.Td>{p.lastSyncAt ? f.date(p.lastSyncAt, 'datetime') : '—'}</Table.Td>
                <Table.Td ta="right">
                  <Button
                    size="xs"
                    color="red"
                    variant="subtle"
                    onClick={() => {
                      if (!window.confirm(t('settings.phoneRevokeConfirm', { name: p.label }))) return;
                      void action.run(() => call('sync.revokePhone', { username: p.username })).then(() => phones.reload());
                    }}
                  >
                    {t('settings.phoneRevoke')}
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <form onSubmit={(event) => void add(event)} aria-label={t('settings.phoneAdd')}>
        <Group align="flex-end" gap="xs">
          <TextInput
            label={t('settings.phoneName')}
            placeholder={t('settings.phoneNamePlaceholder')}
            value={label}
            maxLength={64}
            onChange={(e) => setLabel(e.currentTarget.value)}
            required
            style={{ flex: 1 }}
          />
          <TextInput label={t('settings.phoneAppUrl')} value={appUrl} onChange={(e) => setAppUrl(e.currentTarget.value)} required style={{ flex: 2 }} />
          <Button type="submit" loading={action.busy} disabled={!label.trim() || !appUrl.trim()}>
            {t('settings.phoneAdd')}
          </Button>
        </Group>
      </form>
      <ErrorNote error={action.error} />
      {added && (
        <Stack gap="xs" data-testid="phone-pairing">
          <Text size="sm">{t('settings.phoneScan', { name: added.phone.label })}</Text>
          <Image src={qr} alt={t('settings.phoneQr')} w={240} h={240} fit="contain" style={{ background: '#fff', padding: 8, borderRadius: 8 }} />
          <Code block style={{ wordBreak: 'break-all' }} data-testid="phone-link">
            {added.link}
          </Code>
          <Group gap="xs">
            <CopyButton value={added.link}>
              {({ copied, copy }) => (
                <Button size="xs" variant="default" onClick={copy}>
                  {copied ? t('common.copied') : t('settings.phoneCopy')}
                </Button>
              )}
            </CopyButton>
            <Button size="xs" variant="subtle" onClick={() => setAdded(null)}>
              {t('settings.phoneDone')}
            </Button>
          </Group>
          {added.cors === 'not-changed' && (
            <Alert color="yellow" role="alert">
              {t('settings.phoneCors')}
            </Alert>
          )}
          <Text size="xs" c="dimmed">
            {t('settings.phoneOnce')}
          </Text>
        </Stack>
      )}
    </Stack>
  );
}
