import { useState, type SubmitEvent } from 'react';
import { Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { call } from '../../../api/client';
import { ErrorNote } from '../../../components/common';
import { useAction } from '../../../lib/data';
import type { Member } from './members';

export function DeleteMemberDialog({ member, onClose }: { member: Member; onClose: () => void }) {
  const { t } = useTranslation();
  const remove = useAction();
  const [typed, setTyped] = useState('');
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    if (typed !== member.username) return;
    const done = await remove.run(() => call('user.delete', { userId: member.id, confirm: typed }));
    if (done) {
      notifications.show({ color: 'teal', message: t('household.deleted', { name: member.username }) });
      onClose();
    }
  };
  return (
    <Modal opened onClose={() => !remove.busy && onClose()} title={t('household.deleteTitle', { name: member.username })} centered>
      <form onSubmit={(event) => void submit(event)}>
        <Stack gap="sm">
          <Text size="sm">{t('household.deleteText')}</Text>
          <TextInput
            label={t('household.deleteType', { name: member.username })}
            value={typed}
            onChange={(e) => setTyped(e.currentTarget.value)}
            autoComplete="off"
            spellCheck={false}
            data-autofocus
          />
          <ErrorNote error={remove.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose} disabled={remove.busy}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" color="red" loading={remove.busy} disabled={typed !== member.username}>
              {t('household.deleteConfirm')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
