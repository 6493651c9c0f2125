import { useState } from 'react';
import { Badge, Button, Group, Modal, Skeleton, Stack, Table, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { call, type ResultOf } from '../../api/client';
import { Empty, ErrorNote } from '../../components/common';
import { invalidate, useAction, useApi } from '../../lib/data';
import { useFormat } from '../../lib/format';
import { JsonRestore } from './JsonRestore';
import { Card } from '../../components/Card';

type Snapshot = ResultOf<'backup.listSnapshots'>['list'][number];

/** Settings → Backups: the data dir's snapshots (create, restore) and restoring a JSON backup file. */
export function BackupsTab() {
  const { t } = useTranslation();
  const f = useFormat();
  const snapshots = useApi('backup.listSnapshots', {});
  const creating = useAction();
  const restoring = useAction();
  const deleting = useAction();
  const [confirm, setConfirm] = useState<Snapshot | null>(null);

  const create = async () => {
    const made = await creating.run(() => call('backup.createSnapshot', {}));
    if (made) notifications.show({ color: 'teal', message: t('backups.created', { count: made.records }) });
  };
  const restore = async () => {
    if (!confirm) return;
    const done = await restoring.run(() => call('backup.restoreSnapshot', { id: confirm.id }));
    if (done) {
      setConfirm(null);
      invalidate();
      notifications.show({ color: 'teal', message: t('backups.restored') });
    }
  };
  const remove = async (snapshot: Snapshot) => {
    if (!window.confirm(t('backups.deleteConfirm', { date: f.date(snapshot.createdAt, 'datetime') }))) return;
    const done = await deleting.run(() => call('backup.deleteSnapshot', { id: snapshot.id }));
    if (done) notifications.show({ color: 'teal', message: t('backups.deleted') });
  };
  const list = snapshots.data?.list ?? [];

  return (
    <Stack>
      <Card
        id="set-snapshots"
        title={t('backups.title')}
        hint={t('backups.hint')}
        aside={
          <Button onClick={() => void create()} loading={creating.busy}>
            {t('backups.create')}
          </Button>
        }
      >
        <ErrorNote error={creating.error ?? deleting.error ?? snapshots.error} />
        {snapshots.loading && !snapshots.data ? (
          <Skeleton height={80} />
        ) : list.length === 0 ? (
          <Empty>{t('backups.empty')}</Empty>
        ) : (
          <Table striped aria-labelledby="set-snapshots" data-testid="snapshot-list">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('backups.when')}</Table.Th>
                <Table.Th>{t('backups.reason')}</Table.Th>
                <Table.Th style={{ textAlign: 'right' }}>{t('backups.records')}</Table.Th>
                <Table.Th style={{ textAlign: 'right' }}>{t('backups.size')}</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((s) => (
                <Table.Tr key={s.id} data-snapshot={s.id}>
                  <Table.Td>{f.date(s.createdAt, 'datetime')}</Table.Td>
                  <Table.Td>
                    {t(`backups.reasons.${s.reason}`)}{' '}
                    {s.status === 'ok' && s.reason === 'manual' && (
                      <Badge color="gray" variant="light">
                        {t('backups.keptUntilDeleted')}
                      </Badge>
                    )}
                    {s.status === 'failed' && (
                      <Badge color="red" title={s.error}>
                        {t('backups.failed')}
                      </Badge>
                    )}
                  </Table.Td>
                  <Table.Td style={{ textAlign: 'right' }}>{s.status === 'ok' ? f.number(s.records) : '—'}</Table.Td>
                  <Table.Td style={{ textAlign: 'right' }}>{s.status === 'ok' ? f.bytes(s.bytes) : '—'}</Table.Td>
                  <Table.Td style={{ textAlign: 'right' }}>
                    {s.status === 'ok' && (
                      <Group gap="xs" justify="flex-end" wrap="nowrap">
                        <Button size="xs" variant="default" onClick={() => setConfirm(s)}>
                          {t('backups.restore')}
                        </Button>
                        {s.reason === 'manual' && (
                          <Button
                            size="xs"
                            variant="subtle"
                            color="red"
                            onClick={() => void remove(s)}
                            loading={deleting.busy}
                            aria-label={`${t('backups.delete')} ${f.date(s.createdAt, 'datetime')}`}
                          >
                            {t('backups.delete')}
                          </Button>
                        )}
                      </Group>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Card>
      <JsonRestore />
      <Modal opened={confirm !== null} onClose={() => !restoring.busy && setConfirm(null)} title={t('backups.restoreTitle')} centered>
        <Stack>
          <Text size="sm">{confirm && t('backups.restoreText', { date: f.date(confirm.createdAt, 'datetime') })}</Text>
          <ErrorNote error={restoring.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirm(null)} disabled={restoring.busy}>
              {t('backups.cancel')}
            </Button>
            <Button color="red" onClick={() => void restore()} loading={restoring.busy}>
              {t('backups.restoreConfirm')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
