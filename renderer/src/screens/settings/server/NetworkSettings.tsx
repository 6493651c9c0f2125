import { useState } from 'react';
import { Alert, Button, Code, Group, Skeleton, Stack, Switch, TagsInput, Text, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { call } from '../../../api/client';
import { ErrorNote } from '../../../components/common';
import { useAction, useApi } from '../../../lib/data';
import { useSession } from '../../../lib/auth';
import { useErrorText } from '../../../lib/errors';
import { Card } from '../../../components/Card';

export function NetworkSettings() {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const settings = useApi('settings.get', {});
  const save = useAction();
  const [publicBaseUrl, setPublicBaseUrl] = useState<string | null>(null);
  const [hosts, setHosts] = useState<string[] | null>(null);
  const owner = useSession().user.role === 'owner';
  const s = settings.data;
  const update = (network: { lan?: boolean; lanApi?: boolean; publicBaseUrl?: string; allowedHosts?: string[]; localDestinations?: 'owner' | 'ownerAndAdmins' }) =>
    save.run(() => call('settings.update', { network }));
  return (
    <Card id="set-network" title={t('settings.network')}>
      <ErrorNote error={settings.error} onRetry={settings.reload} />
      {!s ? (
        <Skeleton h={160} />
      ) : (
        <Stack gap="sm">
          <Text size="sm">
            {t('settings.serverAddress')} <Code>{s.listening?.url ?? location.origin}</Code>
          </Text>
          <Switch
            label={t('settings.lan')}
            description={
              s.network.lan && s.lanAddresses.length
                ? t('settings.lanOn', { addresses: s.lanAddresses.map((a) => `http://${a}:${s.listening?.port ?? ''}`).join(', ') })
                : t('settings.lanHint')
            }
            checked={s.network.lan}
            disabled={save.busy}
            onChange={(e) => void update({ lan: e.currentTarget.checked })}
          />
          <Switch
            label={t('settings.lanApi')}
            description={t('settings.lanApiHint')}
            checked={s.network.lanApi}
            disabled={save.busy || !s.network.lan}
            onChange={(e) => void update({ lanApi: e.currentTarget.checked })}
          />
          <Switch
            label={t('settings.localDestinations')}
            description={owner ? t('settings.localDestinationsHint') : t('settings.localDestinationsOwnerOnly')}
            checked={s.network.localDestinations === 'ownerAndAdmins'}
            disabled={save.busy || !owner}
            onChange={(e) => void update({ localDestinations: e.currentTarget.checked ? 'ownerAndAdmins' : 'owner' })}
            data-testid="local-destinations"
          />
          {s.restartRequired && (
            <Alert color="yellow" role="status">
              {t('settings.restartRequired')}
            </Alert>
          )}
          <form
            onSubmit={(e) => {
              e.preventDefault();
              if (publicBaseUrl !== null) void update({ publicBaseUrl: publicBaseUrl.trim().replace(/\/+$/, '') }).then((ok) => ok && setPublicBaseUrl(null));
            }}
          >
            <Group align="flex-start" gap="xs">
              <TextInput
                label={t('settings.publicBaseUrl')}
                description={t('settings.publicBaseUrlHint')}
                placeholder="https://pennypost.example.net"
                value={publicBaseUrl ?? s.network.publicBaseUrl}
                onChange={(e) => setPublicBaseUrl(e.currentTarget.value)}
                style={{ flex: 1 }}
                error={save.error ? errorText(save.error) : null}
              />
              <Button type="submit" mt={44} disabled={publicBaseUrl === null} loading={save.busy}>
                {t('common.save')}
              </Button>
            </Group>
          </form>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              if (hosts !== null) void update({ allowedHosts: hosts }).then((ok) => ok && setHosts(null));
            }}
          >
            <Group align="flex-end" gap="xs">
              <TagsInput
                label={t('settings.allowedHosts')}
                description={t('settings.allowedHostsHint')}
                value={hosts ?? s.network.allowedHosts}
                onChange={setHosts}
                style={{ flex: 1 }}
                splitChars={[',', ' ']}
              />
              <Button type="submit" disabled={hosts === null} loading={save.busy}>
                {t('common.save')}
              </Button>
            </Group>
          </form>
          <Text size="xs" c="dimmed">
            {t('settings.dataDir')} <Code>{s.dataDir}</Code>
          </Text>
        </Stack>
      )}
    </Card>
  );
}
