import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { call, type ResultOf } from '../../../api/client';
import { ErrorNote } from '../../../components/common';
import { useAction, useApi } from '../../../lib/data';
import { useFormat } from '../../../lib/format';

type Interrupted = ResultOf<'import.interrupted'>['imports'][number];

/**
 * Imports a crash cut off while they were being written (docs/import.md, "An interrupted import"):
 * what was written of each, and the two ways on: finish it (import.finish writes the rest, nothing
 * twice) or forget it (import.forgetInterrupted: what was written stays). Shown at the top of the
 * Import until none is left.
 */
export function InterruptedImports() {
  const { t } = useTranslation();
  const f = useFormat();
  const state = useApi('import.interrupted', {});
  const action = useAction();
  const imports = state.data?.imports ?? [];
  if (imports.length === 0) return null;
  const finish = async (item: Interrupted) => {
    const answer = await action.run(() => call('import.finish', { id: item.id }));
    if (answer) notifications.show({ color: 'teal', message: t('imports.interrupted.finished', { count: answer.created }) });
    state.reload();
  };
  const forget = async (item: Interrupted) => {
    await action.run(() => call('import.forgetInterrupted', { id: item.id }), { invalidate: false });
    state.reload();
  };
  return (
    <Stack gap="xs" mb="sm" data-testid="interrupted-imports">
      {imports.map((item) => (
        <Alert key={item.id} color="yellow" role="status" title={t('imports.interrupted.title')} data-testid="interrupted-import">
          <Text size="sm">
            {t('imports.interrupted.what', {
              format: t(`imports.formats.${item.format}`),
              account: item.account || '—',
              time: f.date(item.startedAt, 'datetime'),
              written: f.number(item.written),
              count: item.records,
              records: f.number(item.records),
            })}
          </Text>
          <Group gap="xs" mt="xs">
            <Button size="xs" onClick={() => void finish(item)} loading={action.busy}>
              {t('imports.interrupted.finish', { count: item.records - item.written, n: f.number(item.records - item.written) })}
            </Button>
            <Button size="xs" variant="default" onClick={() => void forget(item)} disabled={action.busy}>
              {t('imports.interrupted.forget')}
            </Button>
          </Group>
        </Alert>
      ))}
      <ErrorNote error={action.error} />
    </Stack>
  );
}
