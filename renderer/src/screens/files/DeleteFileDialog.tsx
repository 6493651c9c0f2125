import { Button, Group, Modal, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { call } from '../../api/client';
import type { ActionState } from '../../lib/data';
import type { FileItem } from './file-item';

/**
 * Asks before deleting a file; a file still attached to records (409 with `data.records`) asks
 * again, saying how many, and then deletes with `force`. Other errors show in the list (`remove`).
 */
export function DeleteFileDialog({ file, remove, onClose }: { file: FileItem | null; remove: ActionState; onClose: () => void }) {
  const { t } = useTranslation();
  const tryDelete = async (target: FileItem, force: boolean) => {
    const done = await remove.run(() => call('file.delete', { fileId: target.fileId, force }), { invalidate: true });
    if (done) {
      onClose();
      notifications.show({ color: 'teal', message: t('files.deleted') });
    }
  };
  const attachedCount = remove.error?.code === 409 ? Number((remove.error.data as { records?: unknown } | null)?.records ?? 0) : 0;
  return (
    <Modal opened={file !== null} onClose={onClose} title={t('files.deleteTitle', { name: file?.fileName ?? '' })}>
      <Text size="sm" mb="md">
        {attachedCount > 0 ? t('files.attachedWarning', { count: attachedCount }) : t('files.deleteText')}
      </Text>
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose}>
          {t('common.cancel')}
        </Button>
        <Button color="red" loading={remove.busy} onClick={() => file && void tryDelete(file, attachedCount > 0)}>
          {attachedCount > 0 ? t('files.deleteAnyway') : t('files.delete')}
        </Button>
      </Group>
    </Modal>
  );
}
