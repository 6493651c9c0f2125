import { useState } from 'react';
import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { call } from '../../../api/client';
import { ErrorNote } from '../../../components/common';
import { useAction } from '../../../lib/data';
import type { Member } from './members';
import { OnceSecret } from './OnceSecret';

export function ResetPasswordDialog({ member, onClose }: { member: Member; onClose: () => void }) {
  const { t } = useTranslation();
  const reset = useAction();
  const [temporary, setTemporary] = useState<string | null>(null);
  const confirm = async () => {
    const done = await reset.run(() => call('user.resetPassword', { userId: member.id }));
    if (done) setTemporary(done.temporaryPassword);
  };
  return (
    <Modal opened onClose={() => !reset.busy && onClose()} title={t('household.resetTitle', { name: member.username })} centered>
      {temporary ? (
        <Stack gap="sm">
          <OnceSecret value={temporary} label={t('household.tempLabel')} copyLabel={t('household.copyTemp')} testId="temporary-password" />
          <Text size="sm">{t('household.tempText', { name: member.username })}</Text>
          <Group justify="flex-end">
            <Button onClick={onClose}>{t('household.done')}</Button>
          </Group>
        </Stack>
      ) : (
        <Stack gap="sm">
          <Text size="sm">{t('household.resetText', { name: member.username })}</Text>
          <ErrorNote error={reset.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose} disabled={reset.busy}>
              {t('common.cancel')}
            </Button>
            <Button color="orange" onClick={() => void confirm()} loading={reset.busy}>
              {t('household.resetPassword')}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
