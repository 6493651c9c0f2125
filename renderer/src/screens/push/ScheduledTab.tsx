import { useState } from 'react';
import { Button, Group, Modal, Pagination, Skeleton, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { call } from '../../api/client';
import { Empty, ErrorNote } from '../../components/common';
import { useAction, useApi } from '../../lib/data';
import { useErrorText } from '../../lib/errors';
import { useFormat } from '../../lib/format';

const PAGE_SIZE = 20;
/** The smallest unit: what is left when no larger one fits. */
const SECOND: [Intl.RelativeTimeFormatUnit, number] = ['second', 1000];
const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [['day', 86_400_000], ['hour', 3_600_000], ['minute', 60_000], SECOND];

/** "in 10 minutes", "tomorrow" in the UI's language (the largest unit that fits; a day less a few seconds is still a day). */
function relative(locale: string, at: number, now: number): string {
  const diff = at - now;
  const [unit, size] = UNITS.find(([, ms]) => Math.abs(diff) >= ms * 0.99) ?? SECOND;
  return new Intl.RelativeTimeFormat(locale, { numeric: 'auto' }).format(Math.round(diff / size), unit);
}

interface Pending {
  id: string;
  appName: string;
  title: string;
  at: number;
}

/** Pushes scheduled with `at` or `delay` that wait to be sent, soonest first; each can be cancelled. */
export function ScheduledTab() {
  const { t } = useTranslation();
  const f = useFormat();
  const errorText = useErrorText();
  const [page, setPage] = useState(1);
  const [cancelling, setCancelling] = useState<Pending | null>(null);
  const scheduled = useApi('push.queryScheduled', { page, pageSize: PAGE_SIZE });
  const run = useAction();
  const now = Date.now();
  const confirm = async () => {
    if (!cancelling) return;
    await run.run<unknown>(() => call('push.cancelScheduled', { id: cancelling.id }));
    // Cancelled, already sent (409) or gone (404): the list is out of date either way.
    setCancelling(null);
    scheduled.reload();
  };
  return (
    <section className="pp-card">
      <Group mb="sm" justify="space-between">
        <Text size="sm" c="dimmed">
          {t('push.scheduledHint')}
        </Text>
        <Button size="xs" variant="default" onClick={scheduled.reload} loading={scheduled.loading}>
          {t('push.refresh')}
        </Button>
      </Group>
      <ErrorNote error={scheduled.error} onRetry={scheduled.reload} />
      {run.error && (
        <Text c="red" size="sm" role="alert" mb="sm">
          {errorText(run.error)}
        </Text>
      )}
      {!scheduled.data ? (
        <Skeleton h={120} />
      ) : scheduled.data.list.length === 0 ? (
        <Empty>{t('push.noScheduled')}</Empty>
      ) : (
        <Table highlightOnHover aria-label={t('push.tabs.scheduled')}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('push.sendsAt')}</Table.Th>
              <Table.Th>{t('push.app')}</Table.Th>
              <Table.Th>{t('push.messageTitle')}</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {scheduled.data.list.map((s) => (
              <Table.Tr key={s.id}>
                <Table.Td className="pp-num">
                  <Text size="sm">{relative(f.locale, s.at, now)}</Text>
                  <Text size="xs" c="dimmed">
                    {f.date(s.at, 'datetime')}
                  </Text>
                </Table.Td>
                <Table.Td>{s.appName}</Table.Td>
                <Table.Td>{s.title}</Table.Td>
                <Table.Td ta="right">
                  <Button size="xs" variant="subtle" color="red" disabled={s.sending} onClick={() => setCancelling(s)} aria-label={t('push.cancelScheduledOf', { title: s.title })}>
                    {s.sending ? t('push.sending') : t('push.cancelScheduled')}
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {scheduled.data && scheduled.data.total > PAGE_SIZE && (
        <Group justify="center" mt="sm">
          <Pagination
            total={Math.ceil(scheduled.data.total / PAGE_SIZE)}
            value={page}
            onChange={setPage}
            size="sm"
            getControlProps={(c) => ({ 'aria-label': t(`common.page.${c}`) })}
          />
        </Group>
      )}
      <Modal opened={cancelling !== null} onClose={() => setCancelling(null)} title={t('push.cancelScheduledTitle')}>
        <Text size="sm" mb="md">
          {cancelling ? t('push.cancelScheduledText', { title: cancelling.title, app: cancelling.appName, when: f.date(cancelling.at, 'datetime') }) : ''}
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setCancelling(null)}>
            {t('push.keepScheduled')}
          </Button>
          <Button color="red" loading={run.busy} onClick={() => void confirm()}>
            {t('push.cancelScheduled')}
          </Button>
        </Group>
      </Modal>
    </section>
  );
}
