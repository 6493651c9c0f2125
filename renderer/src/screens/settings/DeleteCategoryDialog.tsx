import { useState } from 'react';
import { Button, Group, Modal, Select, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { call } from '../../api/client';
import type { ActionState } from '../../lib/data';
import { useErrorText } from '../../lib/errors';
import type { Category } from '../../lib/ledger';

/**
 * Deletes a category, optionally moving its records to another of the same type (`list`); a
 * category still in use without a target is refused (409) and said so.
 */
export function DeleteCategoryDialog({ category, list, remove, onClose }: { category: Category | null; list: Category[]; remove: ActionState; onClose: () => void }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const [moveTo, setMoveTo] = useState<string | null>(null);
  // a new category to delete starts without a target
  const [shownFor, setShownFor] = useState(category);
  if (category !== shownFor) {
    setShownFor(category);
    setMoveTo(null);
  }
  const confirm = async () => {
    if (!category) return;
    const ok = await remove.run(() => call('category.delete', { id: category.id, ...(moveTo ? { moveTo } : {}) }));
    if (ok) {
      onClose();
      notifications.show({ color: 'teal', message: t('settings.categoryDeleted', { count: ok.movedRecords }) });
    }
  };
  return (
    <Modal opened={category !== null} onClose={onClose} title={t('settings.deleteCategoryTitle', { name: category?.name ?? '' })}>
      <Stack gap="sm">
        <Text size="sm">{t('settings.deleteCategoryText')}</Text>
        <Select
          label={t('settings.moveTo')}
          clearable
          placeholder={t('settings.moveToNone')}
          data={list.filter((c) => c.id !== category?.id).map((c) => ({ value: c.id, label: c.name }))}
          value={moveTo}
          onChange={setMoveTo}
        />
        {remove.error && (
          <Text size="sm" c="red" role="alert">
            {remove.error.code === 409 ? t('settings.categoryInUse') : errorText(remove.error)}
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button color="red" loading={remove.busy} onClick={() => void confirm()}>
            {t('assets.delete')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
