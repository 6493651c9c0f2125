import { useState, type SubmitEvent } from 'react';
import { Modal, Select, Stack, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { paramLimits } from '../../api/param-limits';
import { call } from '../../api/client';
import { FormActions } from '../../components/common';
import { useAction } from '../../lib/data';
import { useErrorText } from '../../lib/errors';
import { useChannelText, useChannelTypes, type App, type Channel } from './channel-types';

/** New app / edit app: name, channel, message form (channels with templates) and delivery mode. */
export function AppEditor({ channels, app, onClose }: { channels: Channel[]; app?: App; onClose: (createdId?: string) => void }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const words = useChannelText();
  const types = useChannelTypes();
  const [name, setName] = useState(app?.name ?? '');
  const [channelId, setChannelId] = useState<string | null>(app?.channelId ?? channels.at(0)?.id ?? null);
  const [messageType, setMessageType] = useState<string>(app?.messageType ?? 'custom');
  const [templateId, setTemplateId] = useState(app?.templateId ?? '');
  const [pushMode, setPushMode] = useState<string>(app?.pushMode ?? 'all');
  const { run, busy, error } = useAction();
  const channel = channels.find((c) => c.id === channelId);
  const templates = channel ? types?.of(channel.type)?.templates === true : false;
  const submit = async (event: SubmitEvent) => {
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
      <form onSubmit={(event) => void submit(event)}>
        <Stack gap="sm">
          <TextInput
            label={t('push.appName')}
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            required
            maxLength={paramLimits('push.createApp', 'name').maxLength}
            error={fieldErr('name')}
            data-autofocus
          />
          <Select
            label={t('push.channel')}
            data={channels.map((c) => ({ value: c.id, label: `${c.name} (${words.typeName(c.type)})` }))}
            value={channelId}
            onChange={setChannelId}
            allowDeselect={false}
            error={fieldErr('channelId')}
          />
          {templates && (
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
              {messageType === 'template' && (
                <TextInput label={t('push.templateId')} value={templateId} onChange={(e) => setTemplateId(e.currentTarget.value)} required error={fieldErr('templateId')} />
              )}
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
          <FormActions
            error={error && !['name', 'channelId', 'templateId'].includes(error.field ?? '') ? errorText(error) : null}
            onCancel={() => onClose()}
            busy={busy}
            disabled={!name.trim() || !channelId}
            submitLabel={app ? t('common.save') : t('push.createApp')}
          />
        </Stack>
      </form>
    </Modal>
  );
}
