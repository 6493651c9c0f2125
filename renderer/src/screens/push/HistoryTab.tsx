import { useEffect, useState } from 'react';
import { Anchor, Badge, Button, Group, Pagination, Select, Skeleton, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Empty, ErrorNote } from '../../components/common';
import { useApi } from '../../lib/data';
import { useFormat } from '../../lib/format';
import { STATUS_COLORS } from './channel-types';
import { MessageDetail } from './MessageDetail';
import { markdownText } from '../../lib/markdown-text';

/** Push history, newest first, filtered by app and outcome; a title opens the push with every recipient's result. */
export function HistoryTab() {
  const { t } = useTranslation();
  const f = useFormat();
  const apps = useApi('push.queryApps', {});
  const [appId, setAppId] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<string | null>(null);
  useEffect(() => setPage(1), [appId, status]);
  const messages = useApi('push.queryMessages', { page, pageSize: 20, ...(appId ? { appId } : {}), ...(status ? { status: status as 'success' } : {}) });
  return (
    <section className="pp-card">
      <Group mb="sm" align="flex-end">
        <Select
          size="xs"
          label={t('push.app')}
          placeholder={t('records.any')}
          clearable
          value={appId}
          onChange={setAppId}
          data={(apps.data?.list ?? []).map((a) => ({ value: a.id, label: a.name }))}
        />
        <Select
          size="xs"
          label={t('push.status')}
          placeholder={t('records.any')}
          clearable
          value={status}
          onChange={setStatus}
          data={(['success', 'partial', 'failed', 'empty'] as const).map((s) => ({ value: s, label: t(`push.statuses.${s}`) }))}
        />
        <Button size="xs" variant="default" onClick={messages.reload} loading={messages.loading}>
          {t('push.refresh')}
        </Button>
      </Group>
      <ErrorNote error={messages.error} onRetry={messages.reload} />
      {!messages.data ? (
        <Skeleton h={200} />
      ) : messages.data.list.length === 0 ? (
        <Empty>{t('push.noMessages')}</Empty>
      ) : (
        <Table highlightOnHover aria-label={t('push.tabs.history')}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('push.time')}</Table.Th>
              <Table.Th>{t('push.app')}</Table.Th>
              <Table.Th>{t('push.messageTitle')}</Table.Th>
              <Table.Th>{t('push.status')}</Table.Th>
              <Table.Th ta="right">{t('push.delivered')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {messages.data.list.map((m) => (
              <Table.Tr key={m.id}>
                <Table.Td className="pp-num">{f.date(m.createdAt, 'datetime')}</Table.Td>
                <Table.Td>{m.appName}</Table.Td>
                <Table.Td>
                  <Anchor component="button" type="button" onClick={() => setOpen(m.id)} size="sm">
                    {m.title}
                  </Anchor>
                  <Text size="xs" c="dimmed" truncate maw={380}>
                    {'despPreview' in m ? markdownText(m.despPreview) : ''}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Badge color={STATUS_COLORS[m.status] ?? 'gray'} variant="light">
                    {t(`push.statuses.${m.status as 'success'}`)}
                  </Badge>
                </Table.Td>
                <Table.Td ta="right" className="pp-num">
                  {m.success}/{m.total}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {messages.data && messages.data.total > 20 && (
        <Group justify="center" mt="sm">
          <Pagination total={Math.ceil(messages.data.total / 20)} value={page} onChange={setPage} size="sm" getControlProps={(c) => ({ 'aria-label': t(`common.page.${c}`) })} />
        </Group>
      )}
      {open && <MessageDetail id={open} onClose={() => setOpen(null)} />}
    </section>
  );
}
