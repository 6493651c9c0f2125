import { Button, Group, Modal, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { call } from '../../api/client';
import { useAction } from '../../lib/data';
import { useErrorText } from '../../lib/errors';
import type { App } from './channel-types';

/** Confirms resetting an app's key or deleting the app (`action` null: closed). */
export function AppActionDialog({ app, action, onClose }: { app: App; action: 'reset' | 'delete' | null; onClose: () => void }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const run = useAction();
  const confirm = async () => {
    const ok = await run.run<unknown>(() => (action === 'reset' ? call('push.resetAppKey', { id: app.id }) : call('push.deleteApp', { id: app.id })));
    if (ok) onClose();
  };
  return (
    <Modal opened={action !== null} onClose={onClose} title={action === 'reset' ? t('push.resetKeyTitle') : t('push.deleteAppTitle', { name: app.name })}>
      <Text size="sm" mb="md">
        {action === 'reset' ? t('push.resetKeyText') : t('push.deleteAppText')}
      </Text>
      {run.error && (
        <Text c="red" size="sm" role="alert" mb="sm">
          {errorText(run.error)}
        </Text>
      )}
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose}>
          {t('common.cancel')}
        </Button>
        <Button color="red" loading={run.busy} onClick={() => void confirm()}>
          {action === 'reset' ? t('push.resetKey') : t('push.deleteApp')}
        </Button>
      </Group>
    </Modal>
  );
}
