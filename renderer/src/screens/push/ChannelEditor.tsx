import { useState, type SubmitEvent } from 'react';
import { Modal, Select, Skeleton, Stack, Text, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { call } from '../../api/client';
import { FormActions } from '../../components/common';
import { useAction } from '../../lib/data';
import { useErrorText } from '../../lib/errors';
import { ChannelConfigFields, useConfigForm } from './ChannelConfigFields';
import { useChannelText, useChannelTypes, type Channel } from './channel-types';

/** New channel / edit channel: a name, a type (fixed once created) and the type's settings. */
export function ChannelEditor({ channel, onClose }: { channel: Channel | null; onClose: () => void }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const words = useChannelText();
  const types = useChannelTypes();
  const [name, setName] = useState(channel?.name ?? '');
  const [chosen, setChosen] = useState<string | null>(channel?.type ?? null);
  const form = useConfigForm(channel?.config ?? {});
  const { run, busy, error } = useAction();
  const type = chosen ?? types?.initial ?? '';
  const info = types?.of(type);
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    if (!info || !form.check(info)) return;
    const config = form.config(info);
    const ok = channel
      ? await run(() => call('push.updateChannel', { id: channel.id, name: name.trim(), config }))
      : await run(() => call('push.createChannel', { name: name.trim(), type: info.type, config }));
    if (ok) onClose();
  };
  const fieldErr = (f: string) => (error && (error.field === f || error.field === `config.${f}`) ? errorText(error) : null);
  const general = error && !(error.field ?? '').match(/^(name|config\.\w+)$/) ? errorText(error) : null;
  const hint = words.typeHint(type);
  return (
    <Modal opened onClose={onClose} title={channel ? t('push.editChannel') : t('push.newChannel')}>
      <form onSubmit={(event) => void submit(event)}>
        <Stack gap="sm">
          <TextInput label={t('push.channelName')} value={name} onChange={(e) => setName(e.currentTarget.value)} required maxLength={64} error={fieldErr('name')} data-autofocus />
          {!types ? (
            <Skeleton h={36} />
          ) : (
            <Select
              label={t('push.channelType')}
              data={types.list.map((option) => ({ value: option.type, label: words.typeName(option.type) }))}
              value={type}
              onChange={(v) => v && setChosen(v)}
              allowDeselect={false}
              disabled={!!channel}
            />
          )}
          {hint && (
            <Text size="sm" c="dimmed">
              {hint}
            </Text>
          )}
          {info && <ChannelConfigFields info={info} form={form} errorOf={fieldErr} />}
          <FormActions error={general} onCancel={onClose} busy={busy} disabled={!name.trim() || !info} submitLabel={channel ? t('common.save') : t('push.createChannel')} />
        </Stack>
      </form>
    </Modal>
  );
}
