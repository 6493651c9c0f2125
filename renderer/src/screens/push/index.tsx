import { useEffect, useState, type FormEvent } from 'react';
import { ActionIcon, Alert, Anchor, Badge, Button, Code, Group, Menu, Modal, Pagination, PasswordInput, Select, Skeleton, Stack, Table, Text, TextInput, Textarea, Title, UnstyledButton } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { call, type ParamsOf, type ResultOf } from '../../api/client';
import { CopyButton, Empty, ErrorNote, PageHeader, FormActions } from '../../components/common';
import { Icon } from '../../components/icons';
import { checkFields, NumberField, useNumberField } from '../../components/NumberField';
import { invalidate, useAction, useApi } from '../../lib/data';
import { useErrorText } from '../../lib/errors';
import { useFormat } from '../../lib/format';
import { useFeed } from '../../lib/push-feed';
import { navigate } from '../../lib/router';
import { RoutedTabs } from '../../components/RoutedTabs';

type Channel = ResultOf<'push.queryChannels'>['list'][number];
type App = ResultOf<'push.queryApps'>['list'][number];
const CHANNEL_TYPES = ['desktop', 'wechat', 'webhook'] as const;
const WEBHOOK_FORMATS = ['ntfy', 'gotify', 'bark', 'json'] as const;

export default function PushPage() {
  const { t } = useTranslation();
  return (
    <div className="pp-page">
      <PageHeader title={t('push.title')} />
      <RoutedTabs
        path="/push"
        tabs={[
          { value: 'apps', label: t('push.tabs.apps'), panel: <AppsTab /> },
          { value: 'channels', label: t('push.tabs.channels'), panel: <ChannelsTab /> },
          { value: 'history', label: t('push.tabs.history'), panel: <HistoryTab /> },
          { value: 'feed', label: t('push.tabs.feed'), panel: <FeedTab /> },
        ]}
      />
    </div>
  );
}

/* ------------------------------------------------------------------ apps */

function AppsTab() {
  const { t } = useTranslation();
  const apps = useApi('push.queryApps', {});
  const channels = useApi('push.queryChannels', {});
  const [selected, setSelected] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const list = apps.data?.list ?? [];
  const app = list.find((a) => a.id === selected) ?? list[0];
  const noChannels = channels.data && channels.data.list.length === 0;
  return (
    <>
      <ErrorNote error={apps.error ?? channels.error} onRetry={() => (apps.reload(), channels.reload())} />
      {noChannels ? (
        <Alert color="teal" mb="md">
          <Group justify="space-between">
            <span>{t('push.needChannel')}</span>
            <Button size="xs" onClick={() => navigate('/push?tab=channels')}>
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
                      {t(`push.channelTypes.${a.channelType as 'desktop'}`)} · {t('push.recipientCount', { count: a.recipientCount })}
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

function AppEditor({ channels, app, onClose }: { channels: Channel[]; app?: App; onClose: (createdId?: string) => void }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const [name, setName] = useState(app?.name ?? '');
  const [channelId, setChannelId] = useState<string | null>(app?.channelId ?? channels[0]?.id ?? null);
  const [messageType, setMessageType] = useState<string>(app?.messageType ?? 'custom');
  const [templateId, setTemplateId] = useState(app?.templateId ?? '');
  const [pushMode, setPushMode] = useState<string>(app?.pushMode ?? 'all');
  const { run, busy, error } = useAction();
  const channel = channels.find((c) => c.id === channelId);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!channelId) return;
    const common = {
      name: name.trim(),
      channelId,
      messageType: messageType as 'custom' | 'template',
      templateId: messageType === 'template' ? templateId.trim() : '',
      pushMode: pushMode as 'all' | 'first',
    };
    const result = app ? await run(() => call('push.updateApp', { id: app.id, ...common })) : await run(() => call('push.createApp', common));
    if (result) onClose(result.id);
  };
  const fieldErr = (f: string) => (error && error.field === f ? errorText(error) : null);
  return (
    <Modal opened onClose={() => onClose()} title={app ? t('push.editApp') : t('push.newApp')}>
      <form onSubmit={submit}>
        <Stack gap="sm">
          <TextInput label={t('push.appName')} value={name} onChange={(e) => setName(e.currentTarget.value)} required maxLength={64} error={fieldErr('name')} data-autofocus />
          <Select label={t('push.channel')} data={channels.map((c) => ({ value: c.id, label: `${c.name} (${t(`push.channelTypes.${c.type as 'desktop'}`)})` }))} value={channelId} onChange={setChannelId} allowDeselect={false} error={fieldErr('channelId')} />
          {channel?.type === 'wechat' && (
            <>
              <Select
                label={t('push.messageType')}
                data={[
                  { value: 'custom', label: t('push.messageTypes.custom') },
                  { value: 'template', label: t('push.messageTypes.template') },
                ]}
                value={messageType}
                onChange={(v) => v && setMessageType(v)}
                allowDeselect={false}
              />
              {messageType === 'template' && <TextInput label={t('push.templateId')} value={templateId} onChange={(e) => setTemplateId(e.currentTarget.value)} required error={fieldErr('templateId')} />}
            </>
          )}
          <Select
            label={t('push.pushMode')}
            description={t('push.pushModeHint')}
            data={[
              { value: 'all', label: t('push.pushModes.all') },
              { value: 'first', label: t('push.pushModes.first') },
            ]}
            value={pushMode}
            onChange={(v) => v && setPushMode(v)}
            allowDeselect={false}
          />
          <FormActions error={error && !error.field ? errorText(error) : null} onCancel={() => onClose()} busy={busy} disabled={!name.trim() || !channelId} submitLabel={app ? t('common.save') : t('push.createApp')} />
        </Stack>
      </form>
    </Modal>
  );
}

function AppDetail({ app }: { app: App }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const channels = useApi('push.queryChannels', {});
  const [editing, setEditing] = useState(false);
  const [confirm, setConfirm] = useState<'reset' | 'delete' | null>(null);
  const action = useAction();
  const base = app.sendUrl.slice(0, app.sendUrl.length - `/send/${app.appKey}`.length);
  const forms = [
    { label: t('push.urlForms.send'), url: `${base}/send/${app.appKey}` },
    { label: t('push.urlForms.dotSend'), url: `${base}/${app.appKey}.send` },
    { label: t('push.urlForms.bare'), url: `${base}/${app.appKey}` },
    { label: t('push.urlForms.serverChan'), url: `${base}/send/${app.appKey}.send` },
  ];
  const curl = `curl -X POST '${forms[0].url}' \\\n  -H 'Content-Type: application/json' \\\n  -d '{"title": "Backup finished", "desp": "All **3** jobs OK"}'`;
  return (
    <section className="pp-card" aria-label={t('push.appDetail', { name: app.name })}>
      <Group justify="space-between" mb="sm">
        <div>
          <Title order={2} size="h4">
            {app.name}
          </Title>
          <Text size="sm" c="dimmed">
            {t(`push.channelTypes.${app.channelType as 'desktop'}`)} · {t(`push.pushModes.${app.pushMode as 'all'}`)}
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
      {app.channelType !== 'desktop' && <Recipients app={app} />}
      <SendTest app={app} />
      {editing && channels.data && <AppEditor channels={channels.data.list} app={app} onClose={() => setEditing(false)} />}
      <Modal opened={confirm !== null} onClose={() => setConfirm(null)} title={confirm === 'reset' ? t('push.resetKeyTitle') : t('push.deleteAppTitle', { name: app.name })}>
        <Text size="sm" mb="md">
          {confirm === 'reset' ? t('push.resetKeyText') : t('push.deleteAppText')}
        </Text>
        {action.error && (
          <Text c="red" size="sm" role="alert" mb="sm">
            {errorText(action.error)}
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setConfirm(null)}>
            {t('common.cancel')}
          </Button>
          <Button
            color="red"
            loading={action.busy}
            onClick={async () => {
              const ok = await action.run<unknown>(() => (confirm === 'reset' ? call('push.resetAppKey', { id: app.id }) : call('push.deleteApp', { id: app.id })));
              if (ok) setConfirm(null);
            }}
          >
            {confirm === 'reset' ? t('push.resetKey') : t('push.deleteApp')}
          </Button>
        </Group>
      </Modal>
    </section>
  );
}

function Recipients({ app }: { app: App }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const recipients = useApi('push.queryRecipients', { appId: app.id });
  const [address, setAddress] = useState('');
  const [name, setName] = useState('');
  const add = useAction();
  const remove = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const ok = await add.run(() => call('push.addRecipient', { appId: app.id, address: address.trim(), name: name.trim() }));
    if (ok) {
      setAddress('');
      setName('');
    }
  };
  const hint = app.channelType === 'wechat' ? t('push.addressHints.wechat') : t('push.addressHints.webhook');
  return (
    <div style={{ marginBottom: 16 }}>
      <Title order={3} size="h6" mb={6}>
        {t('push.recipients')}
      </Title>
      <ErrorNote error={recipients.error ?? remove.error} />
      {recipients.data && recipients.data.list.length === 0 && (
        <Text size="sm" c="dimmed" mb="xs">
          {t('push.noRecipients')}
        </Text>
      )}
      {recipients.data && recipients.data.list.length > 0 && (
        <Table mb="xs" aria-label={t('push.recipients')}>
          <Table.Tbody>
            {recipients.data.list.map((r) => (
              <Table.Tr key={r.id}>
                <Table.Td className="pp-code">{r.address}</Table.Td>
                <Table.Td>{r.name}</Table.Td>
                <Table.Td w={40}>
                  <ActionIcon variant="subtle" color="red" aria-label={t('push.removeRecipient', { address: r.name || r.address })} onClick={() => void remove.run(() => call('push.removeRecipient', { id: r.id }))}>
                    <Icon name="trash" size={16} />
                  </ActionIcon>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <form onSubmit={submit}>
        <Group align="flex-start" gap="xs">
          <TextInput size="xs" label={t('push.address')} description={hint} value={address} onChange={(e) => setAddress(e.currentTarget.value)} required error={add.error ? errorText(add.error) : null} style={{ flex: 2 }} />
          <TextInput size="xs" label={t('push.recipientName')} value={name} onChange={(e) => setName(e.currentTarget.value)} maxLength={64} style={{ flex: 1 }} />
          <Button size="xs" type="submit" loading={add.busy} disabled={!address.trim()} mt={22}>
            {t('push.addRecipient')}
          </Button>
        </Group>
      </form>
    </div>
  );
}

interface SendAnswer {
  /** The HTTP status was 2xx (the body's code is 0 on success, ServerChan style). */
  httpOk?: boolean;
  code: number;
  message: string;
  data: { pushId?: string; total?: number; success?: number; failed?: number; results?: { recipient: string; name?: string; ok: boolean; errmsg?: string }[] } | null;
}

/** "Send test": a real push through the app's own /send URL, like any other client would. */
function SendTest({ app }: { app: App }) {
  const { t } = useTranslation();
  const [title, setTitle] = useState(() => t('push.testTitle'));
  const [desp, setDesp] = useState(() => t('push.testBody'));
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<SendAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const send = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setAnswer(null);
    setError(null);
    try {
      const response = await fetch(`/send/${app.appKey}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ title, desp }) });
      const body = (await response.json()) as SendAnswer;
      setAnswer({ ...body, httpOk: response.ok });
      invalidate();
    } catch {
      setError(t('errors.c0'));
    } finally {
      setBusy(false);
    }
  };
  const ok = answer && answer.httpOk && (answer.data?.failed ?? 0) === 0;
  return (
    <form onSubmit={send} aria-label={t('push.sendTest')}>
      <Title order={3} size="h6" mb={6}>
        {t('push.sendTest')}
      </Title>
      <Group align="flex-end" gap="xs">
        <TextInput size="xs" label={t('push.messageTitle')} value={title} onChange={(e) => setTitle(e.currentTarget.value)} required maxLength={200} style={{ flex: 1 }} />
        <TextInput size="xs" label={t('push.messageBody')} value={desp} onChange={(e) => setDesp(e.currentTarget.value)} style={{ flex: 2 }} />
        <Button size="xs" type="submit" loading={busy} disabled={!title.trim()}>
          {t('push.send')}
        </Button>
      </Group>
      {answer && (
        <Alert color={ok ? 'teal' : 'red'} mt="xs" role="status" data-testid="send-result">
          {answer.httpOk && answer.data?.total !== undefined
            ? t('push.sendResult', { success: answer.data?.success ?? 0, total: answer.data?.total ?? 0 })
            : answer.message}
          {answer.data?.results
            ?.filter((r) => !r.ok)
            .map((r) => (
              <Text size="xs" key={r.recipient}>
                {r.name || r.recipient}: {r.errmsg}
              </Text>
            ))}
        </Alert>
      )}
      {error && (
        <Text c="red" size="sm" role="alert">
          {error}
        </Text>
      )}
    </form>
  );
}

/* ------------------------------------------------------------------ channels */

function ChannelsTab() {
  const { t } = useTranslation();
  const channels = useApi('push.queryChannels', {});
  const [editing, setEditing] = useState<Channel | 'new' | null>(null);
  const [testing, setTesting] = useState<Channel | null>(null);
  const remove = useAction();
  return (
    <section className="pp-card">
      <Group justify="space-between" mb="sm">
        <Text size="sm" c="dimmed">
          {t('push.channelsHint')}
        </Text>
        <Button onClick={() => setEditing('new')}>{t('push.newChannel')}</Button>
      </Group>
      <ErrorNote error={channels.error ?? remove.error} onRetry={channels.reload} />
      {!channels.data ? (
        <Skeleton h={120} />
      ) : channels.data.list.length === 0 ? (
        <Empty>{t('push.noChannels')}</Empty>
      ) : (
        <Table aria-label={t('push.tabs.channels')}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('push.channelName')}</Table.Th>
              <Table.Th>{t('push.channelType')}</Table.Th>
              <Table.Th>{t('push.settings')}</Table.Th>
              <Table.Th>{t('push.tabs.apps')}</Table.Th>
              <Table.Th w={60}>
                <span className="pp-visually-hidden">{t('assets.actions')}</span>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {channels.data.list.map((c) => (
              <Table.Tr key={c.id}>
                <Table.Td fw={500}>{c.name}</Table.Td>
                <Table.Td>{t(`push.channelTypes.${c.type as 'desktop'}`)}</Table.Td>
                <Table.Td>
                  <Text size="xs" c="dimmed" className="pp-code">
                    {c.type === 'wechat' ? `${String(c.config.appId)} · ${String(c.config.apiBase)}` : c.type === 'webhook' ? `${String(c.config.format)} ${String(c.config.url || '')}` : '—'}
                  </Text>
                </Table.Td>
                <Table.Td>{c.appCount}</Table.Td>
                <Table.Td>
                  <Menu position="bottom-end">
                    <Menu.Target>
                      <ActionIcon variant="subtle" aria-label={t('push.channelActions', { name: c.name })}>
                        ⋯
                      </ActionIcon>
                    </Menu.Target>
                    <Menu.Dropdown>
                      <Menu.Item onClick={() => setTesting(c)}>{t('push.testChannel')}</Menu.Item>
                      <Menu.Item onClick={() => setEditing(c)}>{t('assets.edit')}</Menu.Item>
                      <Menu.Item color="red" onClick={() => void remove.run(() => call('push.deleteChannel', { id: c.id }))}>
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
      {editing && <ChannelEditor channel={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
      {testing && <ChannelTest channel={testing} onClose={() => setTesting(null)} />}
    </section>
  );
}

function ChannelEditor({ channel, onClose }: { channel: Channel | null; onClose: () => void }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const config = (channel?.config ?? {}) as Record<string, unknown>;
  const [name, setName] = useState(channel?.name ?? '');
  const [type, setType] = useState<(typeof CHANNEL_TYPES)[number]>((channel?.type as 'desktop') ?? 'desktop');
  const [appId, setAppId] = useState(String(config.appId ?? ''));
  const [appSecret, setAppSecret] = useState(String(config.appSecret ?? ''));
  const [apiBase, setApiBase] = useState(String(config.apiBase ?? ''));
  const [format, setFormat] = useState<string>(String(config.format ?? 'ntfy'));
  const [url, setUrl] = useState(String(config.url ?? ''));
  const [token, setToken] = useState(String(config.token ?? ''));
  const priority = useNumberField({ kind: 'whole', min: 0, max: 10, optional: true }, String(config.priority ?? 0));
  const { run, busy, error } = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (type === 'webhook' && !checkFields(priority)) return;
    const cfg: Record<string, unknown> =
      type === 'wechat' ? { appId: appId.trim(), appSecret: appSecret.trim(), ...(apiBase.trim() ? { apiBase: apiBase.trim() } : {}) } : type === 'webhook' ? { format, url: url.trim(), token, priority: priority.value ?? 0 } : {};
    const params = { name: name.trim(), type, config: cfg } satisfies ParamsOf<'push.createChannel'>;
    const ok = channel ? await run(() => call('push.updateChannel', { id: channel.id, name: params.name, config: cfg })) : await run(() => call('push.createChannel', params));
    if (ok) onClose();
  };
  const fieldErr = (f: string) => (error && (error.field === f || error.field === `config.${f}`) ? errorText(error) : null);
  const general = error && !(error.field ?? '').match(/^(name|config\.\w+)$/) ? errorText(error) : null;
  return (
    <Modal opened onClose={onClose} title={channel ? t('push.editChannel') : t('push.newChannel')}>
      <form onSubmit={submit}>
        <Stack gap="sm">
          <TextInput label={t('push.channelName')} value={name} onChange={(e) => setName(e.currentTarget.value)} required maxLength={64} error={fieldErr('name')} data-autofocus />
          <Select label={t('push.channelType')} data={CHANNEL_TYPES.map((v) => ({ value: v, label: t(`push.channelTypes.${v}`) }))} value={type} onChange={(v) => v && setType(v as typeof type)} allowDeselect={false} disabled={!!channel} />
          {type === 'desktop' && (
            <Text size="sm" c="dimmed">
              {t('push.desktopHint')}
            </Text>
          )}
          {type === 'wechat' && (
            <>
              <TextInput label={t('push.wechatAppId')} value={appId} onChange={(e) => setAppId(e.currentTarget.value)} required error={fieldErr('appId')} />
              <PasswordInput label={t('push.wechatSecret')} value={appSecret} onChange={(e) => setAppSecret(e.currentTarget.value)} required error={fieldErr('appSecret')} />
              <TextInput label={t('push.wechatApiBase')} description={t('push.wechatApiBaseHint')} placeholder="https://api.weixin.qq.com" value={apiBase} onChange={(e) => setApiBase(e.currentTarget.value)} error={fieldErr('apiBase')} />
            </>
          )}
          {type === 'webhook' && (
            <>
              <Select label={t('push.webhookFormat')} data={WEBHOOK_FORMATS.map((f) => ({ value: f, label: t(`push.formats.${f}`) }))} value={format} onChange={(v) => v && setFormat(v)} allowDeselect={false} error={fieldErr('format')} />
              <TextInput label={t('push.webhookUrl')} description={t('push.webhookUrlHint')} value={url} onChange={(e) => setUrl(e.currentTarget.value)} error={fieldErr('url')} />
              <PasswordInput label={t('push.webhookToken')} value={token} onChange={(e) => setToken(e.currentTarget.value)} error={fieldErr('token')} />
              <NumberField field={priority} label={t('push.webhookPriority')} error={fieldErr('priority')} />
            </>
          )}
          <FormActions error={general} onCancel={onClose} busy={busy} disabled={!name.trim()} submitLabel={channel ? t('common.save') : t('push.createChannel')} />
        </Stack>
      </form>
    </Modal>
  );
}

function ChannelTest({ channel, onClose }: { channel: Channel; onClose: () => void }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const [address, setAddress] = useState('');
  const [result, setResult] = useState<ResultOf<'push.testChannel'> | null>(null);
  const { run, busy, error } = useAction();
  const test = async (event: FormEvent) => {
    event.preventDefault();
    setResult(null);
    const r = await run(() => call('push.testChannel', { id: channel.id, ...(address.trim() ? { address: address.trim() } : {}) }), { invalidate: false });
    if (r) setResult(r);
  };
  return (
    <Modal opened onClose={onClose} title={t('push.testChannelTitle', { name: channel.name })}>
      <form onSubmit={test}>
        <Stack gap="sm">
          {channel.type !== 'desktop' && <TextInput label={t('push.testAddress')} description={t('push.testAddressHint')} value={address} onChange={(e) => setAddress(e.currentTarget.value)} />}
          <Button type="submit" loading={busy}>
            {t('push.runTest')}
          </Button>
          {result && (
            <Alert color={result.ok ? 'teal' : 'red'} role="status">
              {result.ok ? t('push.testOk', { ms: Math.round(result.ms) }) : result.message}
            </Alert>
          )}
          {error && <Text c="red" size="sm" role="alert">{errorText(error)}</Text>}
        </Stack>
      </form>
    </Modal>
  );
}

/* ------------------------------------------------------------------ history */

const STATUS_COLORS: Record<string, string> = { success: 'teal', partial: 'yellow', failed: 'red', empty: 'gray' };

function HistoryTab() {
  const { t } = useTranslation();
  const f = useFormat();
  const apps = useApi('push.queryApps', {});
  const [appId, setAppId] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<string | null>(null);
  useEffect(() => setPage(1), [appId, status]);
  const messages = useApi('push.queryMessages', { page, pageSize: 20, ...(appId ? { appId } : {}), ...(status ? { status: status as 'success' } : {}) });
  return (
    <section className="pp-card">
      <Group mb="sm" align="flex-end">
        <Select size="xs" label={t('push.app')} placeholder={t('records.any')} clearable value={appId} onChange={setAppId} data={(apps.data?.list ?? []).map((a) => ({ value: a.id, label: a.name }))} />
        <Select
          size="xs"
          label={t('push.status')}
          placeholder={t('records.any')}
          clearable
          value={status}
          onChange={setStatus}
          data={(['success', 'partial', 'failed', 'empty'] as const).map((s) => ({ value: s, label: t(`push.statuses.${s}`) }))}
        />
        <Button size="xs" variant="default" onClick={messages.reload} loading={messages.loading}>
          {t('push.refresh')}
        </Button>
      </Group>
      <ErrorNote error={messages.error} onRetry={messages.reload} />
      {!messages.data ? (
        <Skeleton h={200} />
      ) : messages.data.list.length === 0 ? (
        <Empty>{t('push.noMessages')}</Empty>
      ) : (
        <Table highlightOnHover aria-label={t('push.tabs.history')}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('push.time')}</Table.Th>
              <Table.Th>{t('push.app')}</Table.Th>
              <Table.Th>{t('push.messageTitle')}</Table.Th>
              <Table.Th>{t('push.status')}</Table.Th>
              <Table.Th ta="right">{t('push.delivered')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {messages.data.list.map((m) => (
              <Table.Tr key={m.id}>
                <Table.Td className="pp-num">{f.date(m.createdAt, 'datetime')}</Table.Td>
                <Table.Td>{m.appName}</Table.Td>
                <Table.Td>
                  <Anchor component="button" type="button" onClick={() => setOpen(m.id)} size="sm">
                    {m.title}
                  </Anchor>
                  <Text size="xs" c="dimmed" truncate maw={380}>
                    {'despPreview' in m ? m.despPreview : ''}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Badge color={STATUS_COLORS[m.status] ?? 'gray'} variant="light">
                    {t(`push.statuses.${m.status as 'success'}`)}
                  </Badge>
                </Table.Td>
                <Table.Td ta="right" className="pp-num">
                  {m.success}/{m.total}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {messages.data && messages.data.total > 20 && (
        <Group justify="center" mt="sm">
          <Pagination total={Math.ceil(messages.data.total / 20)} value={page} onChange={setPage} size="sm" getControlProps={(c) => ({ 'aria-label': t(`common.page.${c}`) })} />
        </Group>
      )}
      {open && <MessageDetail id={open} onClose={() => setOpen(null)} />}
    </section>
  );
}

function MessageDetail({ id, onClose }: { id: string; onClose: () => void }) {
  const { t } = useTranslation();
  const f = useFormat();
  const message = useApi('push.getMessage', { id }, { live: false });
  const m = message.data && 'results' in message.data ? message.data : undefined;
  return (
    <Modal opened onClose={onClose} title={m?.title ?? t('common.loading')} size="xl">
      <ErrorNote error={message.error} onRetry={message.reload} />
      {!m ? (
        <Skeleton h={200} />
      ) : (
        <Stack gap="sm">
          <Group gap="md">
            <Badge color={STATUS_COLORS[m.status] ?? 'gray'} variant="light">
              {t(`push.statuses.${m.status as 'success'}`)}
            </Badge>
            <Text size="sm">{m.appName}</Text>
            <Text size="sm" c="dimmed">
              {f.date(m.createdAt, 'datetime')}
            </Text>
            {m.url && (
              <Anchor href={m.url} target="_blank" rel="noreferrer" size="sm">
                {t('push.messagePage')}
              </Anchor>
            )}
          </Group>
          {m.desp && (
            <Code block className="pp-code">
              {m.desp}
            </Code>
          )}
          <Title order={3} size="h6">
            {t('push.results')}
          </Title>
          {m.results.length === 0 ? (
            <Text size="sm" c="dimmed">
              {t('push.noResults')}
            </Text>
          ) : (
            <Table aria-label={t('push.results')}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('push.recipient')}</Table.Th>
                  <Table.Th>{t('push.status')}</Table.Th>
                  <Table.Th>{t('push.detail')}</Table.Th>
                  <Table.Th ta="right">{t('push.attempts')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {m.results.map((r, i) => (
                  <Table.Tr key={`${r.recipient}-${i}`}>
                    <Table.Td>
                      <Text size="sm">{r.name || r.recipient}</Text>
                      {r.name && (
                        <Text size="xs" c="dimmed" className="pp-code">
                          {r.recipient}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Badge color={r.ok ? 'teal' : 'red'} variant="light">
                        {r.ok ? t('push.delivered') : t(`push.errorClasses.${(r.class || 'systemic') as 'systemic'}`, { defaultValue: r.class })}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      <Text size="xs">{r.ok ? (r.msgId ? `msgid ${r.msgId}` : '') : `${r.errcode ?? ''} ${r.errmsg ?? ''}`}</Text>
                    </Table.Td>
                    <Table.Td ta="right">{r.attempts}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Stack>
      )}
    </Modal>
  );
}

/* ------------------------------------------------------------------ live feed */

function FeedTab() {
  const { t } = useTranslation();
  const f = useFormat();
  const { items, status } = useFeed();
  const [permission, setPermission] = useState(() => (typeof Notification === 'undefined' ? 'denied' : Notification.permission));
  return (
    <section className="pp-card" aria-label={t('push.tabs.feed')}>
      <Group justify="space-between" mb="sm">
        <Group gap="xs">
          <Badge color={status === 'live' ? 'teal' : status === 'connecting' ? 'yellow' : 'gray'} variant="dot" data-testid="feed-status">
            {t(`push.feedStatus.${status}`)}
          </Badge>
          <Text size="sm" c="dimmed">
            {t('push.feedHint')}
          </Text>
        </Group>
        {permission === 'default' && (
          <Button size="xs" variant="default" onClick={() => void Notification.requestPermission().then(setPermission)}>
            {t('push.enableSystemNotifications')}
          </Button>
        )}
      </Group>
      {items.length === 0 ? (
        <Empty>{t('push.feedEmpty')}</Empty>
      ) : (
        <Stack gap="sm" component="ul" className="pp-plain-list" aria-label={t('push.feedList')}>
          {items.map((m) => (
            <li key={m.id} className="pp-feed-item">
              <Group justify="space-between" wrap="nowrap">
                <Text fw={600} size="sm">
                  {m.title}
                </Text>
                <Text size="xs" c="dimmed">
                  {m.appName} · {f.date(m.createdAt, 'datetime')}
                </Text>
              </Group>
              {m.desp && (
                <Text size="sm" c="dimmed" lineClamp={3}>
                  {m.desp}
                </Text>
              )}
            </li>
          ))}
        </Stack>
      )}
    </section>
  );
}

