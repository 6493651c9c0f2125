import { useEffect, useState, type SubmitEvent } from 'react';
import { Alert, Badge, Button, Group, PasswordInput, Skeleton, Stack, Switch, Table, Text, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { call } from '../../../api/client';
import { ErrorNote } from '../../../components/common';
import { useAction, useApi } from '../../../lib/data';
import { useErrorText } from '../../../lib/errors';
import { useFormat } from '../../../lib/format';
import { PhonePairing } from './PhonePairing';
import { SyncConflicts } from './SyncConflicts';
import { Card } from '../../../components/Card';

const SYNC_STATE_COLORS: Record<string, string> = { idle: 'teal', active: 'blue', paused: 'yellow', error: 'red', stopped: 'gray' };

export function SyncSettings() {
  const { t } = useTranslation();
  const f = useFormat();
  const errorText = useErrorText();
  const [poll, setPoll] = useState(0);
  const status = useApi('sync.status', {});
  const [url, setUrl] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [live, setLive] = useState(true);
  const action = useAction();
  // Live status: refresh every 3 s while this section is open.
  useEffect(() => {
    const timer = window.setInterval(() => setPoll((n) => n + 1), 3000);
    return () => window.clearInterval(timer);
  }, []);
  useEffect(() => {
    if (poll) status.reload();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only the 3 s tick reloads; `status` changes with every answer
  }, [poll]);
  const s = status.data;
  const configured = s && 'configured' in s && s.configured;
  const connect = async (event: SubmitEvent) => {
    event.preventDefault();
    const ok = await action.run(() => call('sync.configure', { url: url.trim(), username: username.trim(), password, live }));
    if (ok) setPassword('');
  };
  return (
    <Card id="set-sync" title={t('settings.sync')} hint={t('settings.syncHint')}>
      {status.error && status.data === undefined && <ErrorNote error={status.error} onRetry={status.reload} />}
      {!s ? (
        <Skeleton h={120} />
      ) : !configured ? (
        <form onSubmit={(event) => void connect(event)} aria-label={t('settings.syncConnect')}>
          <Group align="flex-start" gap="xs">
            <TextInput
              label={t('settings.syncUrl')}
              placeholder="https://couch.example.com/"
              value={url}
              onChange={(e) => setUrl(e.currentTarget.value)}
              required
              style={{ flex: 2 }}
            />
            <TextInput label={t('settings.syncUser')} value={username} onChange={(e) => setUsername(e.currentTarget.value)} required style={{ flex: 1 }} autoComplete="off" />
            <PasswordInput
              label={t('auth.password')}
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
              required
              style={{ flex: 1 }}
              autoComplete="new-password"
            />
          </Group>
          <Group justify="space-between" mt="sm">
            <Switch label={t('settings.syncLive')} checked={live} onChange={(e) => setLive(e.currentTarget.checked)} />
            <Button type="submit" loading={action.busy} disabled={!url.trim() || !username.trim() || !password}>
              {t('settings.syncConnectButton')}
            </Button>
          </Group>
          {action.error && (
            <Alert color="red" role="alert" mt="sm">
              {errorText(action.error)}
            </Alert>
          )}
        </form>
      ) : (
        'collections' in s && (
          <Stack gap="sm">
            <Group justify="space-between">
              <Text size="sm">
                {t('settings.syncWith', { url: s.url, user: s.username })} · {s.enabled ? t('settings.syncOn') : t('settings.syncOff')}
              </Text>
              <Group gap="xs">
                {s.enabled ? (
                  <Button size="xs" variant="default" onClick={() => void action.run(() => call('sync.stop', {}))}>
                    {t('settings.syncPause')}
                  </Button>
                ) : (
                  <Button size="xs" onClick={() => void action.run(() => call('sync.start', {}))}>
                    {t('settings.syncStart')}
                  </Button>
                )}
                <Button size="xs" variant="default" onClick={() => void action.run(() => call('sync.resync', {}))}>
                  {t('settings.syncResync')}
                </Button>
                <Button size="xs" color="red" variant="subtle" onClick={() => void action.run(() => call('sync.remove', {}))}>
                  {t('settings.syncRemove')}
                </Button>
              </Group>
            </Group>
            <ErrorNote error={action.error} />
            <Table aria-label={t('settings.syncStatus')}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('settings.syncCollection')}</Table.Th>
                  <Table.Th>{t('push.status')}</Table.Th>
                  <Table.Th>{t('settings.syncLastPush')}</Table.Th>
                  <Table.Th>{t('settings.syncLastPull')}</Table.Th>
                  <Table.Th ta="right">{t('settings.syncPending')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {s.collections.map((c) => (
                  <Table.Tr key={c.collection}>
                    <Table.Td>{c.collection}</Table.Td>
                    <Table.Td>
                      <Badge variant="light" color={SYNC_STATE_COLORS[c.state] ?? 'gray'}>
                        {t(`settings.syncStates.${c.state as 'idle'}`)}
                      </Badge>
                      {c.lastError && (
                        <Text size="xs" c="red">
                          {c.lastError}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>{c.lastPushedAt ? f.date(c.lastPushedAt, 'datetime') : '—'}</Table.Td>
                    <Table.Td>{c.lastPulledAt ? f.date(c.lastPulledAt, 'datetime') : '—'}</Table.Td>
                    <Table.Td ta="right">{c.pending}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
            <PhonePairing />
          </Stack>
        )
      )}
      {s && <SyncConflicts />}
    </Card>
  );
}
