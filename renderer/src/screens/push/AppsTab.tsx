import { useState } from 'react';
import { Alert, Button, Group, Skeleton, Stack, Text, UnstyledButton } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Empty, ErrorNote } from '../../components/common';
import { useApi } from '../../lib/data';
import { navigate } from '../../lib/router';
import { AppDetail } from './AppDetail';
import { AppEditor } from './AppEditor';
import { useChannelText, useDeliveryText } from './channel-types';

/** Apps: the list on the left, the chosen app's URLs, recipients and test on the right. */
export function AppsTab() {
  const { t } = useTranslation();
  const words = useChannelText();
  const delivery = useDeliveryText();
  const apps = useApi('push.queryApps', {});
  const channels = useApi('push.queryChannels', {});
  const [selected, setSelected] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const list = apps.data?.list ?? [];
  const app = list.find((a) => a.id === selected) ?? list.at(0);
  const noChannels = channels.data && channels.data.list.length === 0;
  return (
    <>
      <ErrorNote
        error={apps.error ?? channels.error}
        onRetry={() => {
          apps.reload();
          channels.reload();
        }}
      />
      {noChannels ? (
        <Alert color="teal" mb="md">
          <Group justify="space-between">
            <span>{t('push.needChannel')}</span>
            <Button size="xs" onClick={() => navigate('/push?tab=channels&new=1')}>
              {t('push.newChannel')}
            </Button>
          </Group>
        </Alert>
      ) : null}
      <div className="pp-grid" style={{ gridTemplateColumns: 'minmax(220px, 1fr) minmax(0, 3fr)' }}>
        <section className="pp-card" aria-label={t('push.tabs.apps')}>
          <Button fullWidth mb="sm" onClick={() => setCreating(true)} disabled={!channels.data || noChannels}>
            {t('push.newApp')}
          </Button>
          {!apps.data ? (
            <Skeleton h={120} />
          ) : list.length === 0 ? (
            <Empty>{t('push.noApps')}</Empty>
          ) : (
            <Stack gap={4}>
              {list.map((a) => (
                <UnstyledButton key={a.id} className="pp-nav-link" aria-current={a.id === app?.id ? 'page' : undefined} onClick={() => setSelected(a.id)}>
                  <div style={{ minWidth: 0 }}>
                    <Text size="sm" fw={500} truncate>
                      {a.name}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {words.typeName(a.channelType)} · {delivery(a)}
                    </Text>
                  </div>
                </UnstyledButton>
              ))}
            </Stack>
          )}
        </section>
        {app ? <AppDetail key={app.id} app={app} /> : <div />}
      </div>
      {creating && channels.data && (
        <AppEditor
          channels={channels.data.list}
          onClose={(id) => {
            setCreating(false);
            if (id) setSelected(id);
          }}
        />
      )}
    </>
  );
}
