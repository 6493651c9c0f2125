import { Button, Group, Modal, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { call } from '../../api/client';
import type { ActionState } from '../../lib/data';
import { useErrorText } from '../../lib/errors';
import type { Asset } from '../../lib/ledger';

/** Asks before deleting an asset. The screen's action carries busy and error (shared with archive and default). */
export function DeleteAssetDialog({ asset, action, onClose }: { asset: Asset | null; action: ActionState; onClose: () => void }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const confirm = async () => {
    if (!asset) return;
    const ok = await action.run(() => call('asset.delete', { id: asset.id }));
    if (ok) {
      notifications.show({ color: 'teal', message: t('assets.deleted') });
      onClose();
    }
  };
  return (
    <Modal opened={asset !== null} onClose={onClose} title={t('assets.deleteTitle', { name: asset?.name ?? '' })}>
      <Text size="sm" mb="md">
        {t('assets.deleteText')}
      </Text>
      {action.error && (
        <Text c="red" size="sm" role="alert" mb="sm">
          {errorText(action.error)}
        </Text>
      )}
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose}>
          {t('common.cancel')}
        </Button>
        <Button color="red" loading={action.busy} onClick={() => void confirm()}>
          {t('assets.confirmDelete')}
        </Button>
      </Group>
    </Modal>
  );
}
