import { useState, type SubmitEvent } from 'react';
import { ActionIcon, Button, Group, Table, Text, TextInput, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { call } from '../../api/client';
import { ErrorNote } from '../../components/common';
import { Icon } from '../../components/icons';
import { useAction, useApi } from '../../lib/data';
import { useErrorText } from '../../lib/errors';
import { useChannelText, type App } from './channel-types';

/** An app's recipients in delivery order, and the form that adds one (the address hint comes from the channel type). */
export function Recipients({ app }: { app: App }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const words = useChannelText();
  const recipients = useApi('push.queryRecipients', { appId: app.id });
  const [address, setAddress] = useState('');
  const [name, setName] = useState('');
  const add = useAction();
  const remove = useAction();
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const ok = await add.run(() => call('push.addRecipient', { appId: app.id, address: address.trim(), name: name.trim() }));
    if (ok) {
      setAddress('');
      setName('');
    }
  };
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
                  <ActionIcon
                    variant="subtle"
                    color="red"
                    aria-label={t('push.removeRecipient', { address: r.name || r.address })}
                    onClick={() => void remove.run(() => call('push.removeRecipient', { id: r.id }))}
                  >
                    <Icon name="trash" size={16} />
                  </ActionIcon>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <form onSubmit={(event) => void submit(event)}>
        <Group align="flex-start" gap="xs">
          <TextInput
            size="xs"
            label={t('push.address')}
            description={words.addressHint(app.channelType)}
            value={address}
            onChange={(e) => setAddress(e.currentTarget.value)}
            required
            error={add.error ? errorText(add.error) : null}
            style={{ flex: 2 }}
          />
          <TextInput size="xs" label={t('push.recipientName')} value={name} onChange={(e) => setName(e.currentTarget.value)} maxLength={64} style={{ flex: 1 }} />
          <Button size="xs" type="submit" loading={add.busy} disabled={!address.trim()} mt={22}>
            {t('push.addRecipient')}
          </Button>
        </Group>
      </form>
    </div>
  );
}
