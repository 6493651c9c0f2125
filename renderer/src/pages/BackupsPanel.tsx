import { useRef, useState } from 'react';
import { Alert, Badge, Button, Group, Modal, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { ApiCallError, call, type ResultOf } from '../api/client';
import { Empty, ErrorNote } from '../components/common';
import { invalidate, useAction, useApi } from '../lib/data';
import { useFormat } from '../lib/format';

type Snapshot = ResultOf<'backup.listSnapshots'>['list'][number];

/** Settings → Backups: the data dir's snapshots (create, restore) and restoring a JSON backup file. */
export default function BackupsPanel() {
  const { t } = useTranslation();
  const f = useFormat();
  const snapshots = useApi('backup.listSnapshots', {});
  const creating = useAction();
  const restoring = useAction();
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
  const list = snapshots.data?.list ?? [];

  return (
    <Stack>
      <section className="pp-card" aria-labelledby="set-snapshots">
        <Group justify="space-between" mb="xs">
          <Title order={2} size="h5" id="set-snapshots">
            {t('backups.title')}
          </Title>
          <Button onClick={() => void create()} loading={creating.busy}>
            {t('backups.create')}
          </Button>
        </Group>
        <Text size="sm" c="dimmed" mb="sm">
          {t('backups.hint')}
        </Text>
        <ErrorNote error={creating.error ?? snapshots.error} />
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
                      <Button size="xs" variant="default" onClick={() => setConfirm(s)}>
                        {t('backups.restore')}
                      </Button>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </section>
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

/** The request limit is 1 MiB: records go in parts of at most this many characters of JSON. */
const PART_CHARS = 700_000;

/** Restore a JSON backup file into the signed-in account (per account: members have it under Import & export). */
export function JsonRestore() {
  const { t } = useTranslation();
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const choose = async (file: File | undefined) => {
    if (!file) return;
    setError(null);
    setBusy(true);
    try {
      let backup: Record<string, unknown> & { records?: unknown[] };
      try {
        backup = JSON.parse(await file.text()) as typeof backup;
      } catch {
        throw new ApiCallError(400, t('backups.jsonBad'));
      }
      if (typeof backup !== 'object' || backup === null || backup.format !== 'pennypost-ledger-backup') throw new ApiCallError(400, t('backups.jsonBad'));
      const records = Array.isArray(backup.records) ? backup.records : [];
      const parts: unknown[][] = [];
      let part: unknown[] = [];
      let size = 0;
      for (const record of records) {
        const chars = JSON.stringify(record).length + 1;
        if (part.length > 0 && size + chars > PART_CHARS) {
          parts.push(part);
          part = [];
          size = 0;
        }
        part.push(record);
        size += chars;
      }
      parts.push(part);
      const total = { assets: 0, records: 0 };
      for (const [index, chunk] of parts.entries()) {
        const payload = index === 0 ? { ...backup, records: chunk } : { format: backup.format, version: backup.version, records: chunk };
        const answer = await call('ledger.restore', { backup: payload as never, append: index > 0 });
        total.assets += answer.restored.assets;
        total.records += answer.restored.records;
      }
      invalidate();
      notifications.show({ color: 'teal', message: t('backups.jsonRestored', total) });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
      if (input.current) input.current.value = '';
    }
  };

  return (
    <section className="pp-card" aria-labelledby="set-json-restore">
      <Title order={2} size="h5" id="set-json-restore" mb="xs">
        {t('backups.jsonTitle')}
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        {t('backups.jsonHint')}
      </Text>
      <input ref={input} type="file" accept=".json,application/json" className="pp-visually-hidden" tabIndex={-1} aria-hidden="true" onChange={(e) => void choose(e.currentTarget.files?.[0])} data-testid="json-restore-input" />
      <Button variant="default" onClick={() => input.current?.click()} loading={busy}>
        {t('backups.jsonChoose')}
      </Button>
      {error instanceof ApiCallError && error.code === 400 && error.message === t('backups.jsonBad') ? (
        <Alert color="red" role="alert" mt="sm">
          {error.message}
        </Alert>
      ) : (
        <ErrorNote error={error} />
      )}
    </section>
  );
}
