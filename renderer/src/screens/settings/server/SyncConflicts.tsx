import { useState } from 'react';
import { Badge, Button, Group, Pagination, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { call } from '../../../api/client';
import { Empty, ErrorNote } from '../../../components/common';
import { useAction, useApi } from '../../../lib/data';
import { useFormat } from '../../../lib/format';

const CONFLICT_PAGE_SIZE = 20;

/** A field value as the conflict log shows it (text in quotes, long values cut). */
function conflictValue(value: unknown): string {
  if (value === undefined || value === null || value === '') return '—';
  const text = typeof value === 'string' ? `"${value}"` : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** Settings → Sync → Conflicts: what the conflict merge overwrote, with "Keep the other version". */
export function SyncConflicts() {
  const { t } = useTranslation();
  const f = useFormat();
  const [page, setPage] = useState(1);
  const log = useApi('sync.conflicts', { page, pageSize: CONFLICT_PAGE_SIZE });
  const action = useAction();
  const data = log.data;
  const keep = async (conflictId: string) => {
    const ok = await action.run(() => call('sync.keepOtherVersion', { conflictId }));
    if (ok) notifications.show({ color: 'teal', message: t('settings.syncConflicts.kept') });
  };
  return (
    <Stack gap="xs" mt="md" aria-labelledby="set-sync-conflicts">
      <Title order={3} size="h6" id="set-sync-conflicts">
        {t('settings.syncConflicts.title')}
      </Title>
      <Text size="xs" c="dimmed">
        {t('settings.syncConflicts.hint')}
      </Text>
      <ErrorNote error={log.error ?? action.error} />
      {data && data.list.length === 0 && <Empty>{t('settings.syncConflicts.empty')}</Empty>}
      {data && data.list.length > 0 && (
        <Stack gap="xs" component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }} aria-label={t('settings.syncConflicts.title')}>
          {data.list.map((c) => (
            <li key={c.id} data-testid="sync-conflict">
              <Group justify="space-between" align="flex-start" wrap="nowrap" gap="sm">
                <Stack gap={2} style={{ minWidth: 0 }}>
                  <Group gap="xs">
                    <Text size="sm" fw={500}>
                      {t(`settings.syncConflicts.kinds.${c.kind as 'fields'}`)}
                    </Text>
                    <Badge size="xs" variant="light" color={c.status === 'open' ? 'yellow' : 'gray'}>
                      {t(`settings.syncConflicts.statuses.${c.status as 'open'}`)}
                    </Badge>
                  </Group>
                  <Text size="xs" c="dimmed">
                    {t('settings.syncConflicts.document', { collection: c.collection, id: c.documentId })} · {f.date(c.at, 'datetime')} ·{' '}
                    {t(`settings.syncConflicts.lost.${c.lost as 'this-device'}`)}
                  </Text>
                  {c.fields.map((field) => (
                    <Text size="xs" key={field.field} style={{ overflowWrap: 'anywhere' }}>
                      {c.kind === 'fields'
                        ? t('settings.syncConflicts.field', { field: field.field, lost: conflictValue(field.lost), kept: conflictValue(field.kept) })
                        : t('settings.syncConflicts.fieldLost', { field: field.field, lost: conflictValue(field.lost) })}
                    </Text>
                  ))}
                </Stack>
                {c.status === 'open' && (
                  <Group gap="xs" wrap="nowrap">
                    <Button size="xs" variant="default" loading={action.busy} onClick={() => void keep(c.id)}>
                      {t('settings.syncConflicts.keep')}
                    </Button>
                    <Button
                      size="xs"
                      variant="subtle"
                      color="gray"
                      disabled={action.busy}
                      onClick={() => void action.run(() => call('sync.dismissConflict', { conflictId: c.id }))}
                    >
                      {t('settings.syncConflicts.dismiss')}
                    </Button>
                  </Group>
                )}
              </Group>
            </li>
          ))}
        </Stack>
      )}
      {data && data.total > data.pageSize && (
        <Group justify="flex-end">
          <Pagination total={Math.ceil(data.total / data.pageSize)} value={page} onChange={setPage} size="sm" getControlProps={(c) => ({ 'aria-label': t(`common.page.${c}`) })} />
        </Group>
      )}
    </Stack>
  );
}
