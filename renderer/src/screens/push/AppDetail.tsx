import { useState } from 'react';
import { ActionIcon, Code, Group, Menu, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { CopyButton } from '../../components/common';
import { useApi } from '../../lib/data';
import { AppActionDialog } from './AppActionDialog';
import { AppEditor } from './AppEditor';
import { useChannelText, useChannelTypes, useDeliveryText, type App } from './channel-types';
import { Recipients } from './Recipients';
import { SendTest } from './SendTest';

/** One app: its webhook URLs in every accepted form, a curl example, its recipients and a test push. */
export function AppDetail({ app }: { app: App }) {
  const { t } = useTranslation();
  const words = useChannelText();
  const delivery = useDeliveryText();
  const types = useChannelTypes();
  const channels = useApi('push.queryChannels', {});
  const [editing, setEditing] = useState(false);
  const [confirm, setConfirm] = useState<'reset' | 'delete' | null>(null);
  const base = app.sendUrl.slice(0, app.sendUrl.length - `/send/${app.appKey}`.length);
  const serverChanV3Key = `sctp1t${app.appKey}`;
  const sendUrl = `${base}/send/${app.appKey}`;
  const forms = [
    { label: t('push.urlForms.send'), url: sendUrl },
    { label: t('push.urlForms.dotSend'), url: `${base}/${app.appKey}.send` },
    { label: t('push.urlForms.bare'), url: `${base}/${app.appKey}` },
    { label: t('push.urlForms.serverChan'), url: `${base}/send/${app.appKey}.send` },
    // ServerChan³ clients take a sendkey `sctp{uid}t{key}` and build /send/{sendkey}.send on their own host (docs/push.md).
    { label: t('push.urlForms.serverChanV3'), url: `${base}/send/${serverChanV3Key}.send` },
  ];
  const curl = `curl -X POST '${sendUrl}' \\\n  -H 'Content-Type: application/json' \\\n  -d '{"title": "Backup finished", "desp": "All **3** jobs OK"}'`;
  return (
    <section className="pp-card" aria-label={t('push.appDetail', { name: app.name })}>
      <Group justify="space-between" mb="sm">
        <div>
          <Title order={2} size="h4">
            {app.name}
          </Title>
          <Text size="sm" c="dimmed">
            {words.typeName(app.channelType)} · {delivery(app)}
          </Text>
        </div>
        <Menu position="bottom-end">
          <Menu.Target>
            <ActionIcon variant="default" size="lg" aria-label={t('push.appActions', { name: app.name })}>
              ⋯
            </ActionIcon>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Item onClick={() => setEditing(true)}>{t('push.editApp')}</Menu.Item>
            <Menu.Item onClick={() => setConfirm('reset')}>{t('push.resetKey')}</Menu.Item>
            <Menu.Item color="red" onClick={() => setConfirm('delete')}>
              {t('push.deleteApp')}
            </Menu.Item>
          </Menu.Dropdown>
        </Menu>
      </Group>
      <Title order={3} size="h6" mb={6}>
        {t('push.webhookUrls')}
      </Title>
      <Stack gap={6} mb="md">
        {forms.map((form) => (
          <Group key={form.label} gap="xs" wrap="nowrap">
            <Text size="xs" c="dimmed" w={150}>
              {form.label}
            </Text>
            <Code className="pp-code" style={{ flex: 1 }}>
              {form.url}
            </Code>
            <CopyButton value={form.url} label={t('push.copyUrl', { form: form.label })} />
          </Group>
        ))}
        <Group gap="xs" wrap="nowrap">
          <Text size="xs" c="dimmed" w={150}>
            {t('push.serverChanV3Key')}
          </Text>
          <Code className="pp-code" style={{ flex: 1 }}>
            {serverChanV3Key}
          </Code>
          <CopyButton value={serverChanV3Key} label={t('push.copyServerChanV3Key')} />
        </Group>
        <Text size="xs" c="dimmed">
          {t('push.dropinHint')}
        </Text>
      </Stack>
      <Group justify="space-between" mb={6}>
        <Title order={3} size="h6">
          {t('push.curlExample')}
        </Title>
        <CopyButton value={curl} label={t('push.copyCurl')} />
      </Group>
      <Code block className="pp-code" mb="md">
        {curl}
      </Code>
      {types?.of(app.channelType)?.recipients && <Recipients app={app} />}
      <SendTest app={app} />
      {editing && channels.data && <AppEditor channels={channels.data.list} app={app} onClose={() => setEditing(false)} />}
      <AppActionDialog app={app} action={confirm} onClose={() => setConfirm(null)} />
    </section>
  );
}
