import { useState } from 'react';
import { Button, Group } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { call } from '../../api/client';
import { invalidate } from '../../lib/data';
import { useErrorText } from '../../lib/errors';

/** How long the toast offers Undo (the server keeps the token for 60 s). */
export const UNDO_TOAST_MS = 15_000;

/** A toast with an Undo button after a delete or a bulk edit; Undo calls accounting.undo with the change's token. */
export function showUndoToast(message: string, undoToken: string): void {
  const id = `undo-${undoToken}`;
  notifications.show({ id, color: 'teal', autoClose: UNDO_TOAST_MS, message: <UndoMessage id={id} message={message} token={undoToken} /> });
}

function UndoMessage({ id, message, token }: { id: string; message: string; token: string }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const [busy, setBusy] = useState(false);
  const undo = async () => {
    setBusy(true);
    try {
      const { restored } = await call('accounting.undo', { token });
      invalidate();
      notifications.hide(id);
      notifications.show({ color: 'teal', message: t('search.undone', { count: restored }) });
    } catch (error) {
      notifications.hide(id);
      notifications.show({ color: 'red', autoClose: 8000, message: errorText(error) });
    }
  };
  return (
    <Group justify="space-between" wrap="nowrap" gap="sm" data-testid="undo-toast">
      <span>{message}</span>
      <Button size="compact-sm" variant="light" loading={busy} onClick={() => void undo()}>
        {t('search.undo')}
      </Button>
    </Group>
  );
}
