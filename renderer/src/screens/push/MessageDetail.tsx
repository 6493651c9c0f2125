import { Anchor, Badge, Group, Modal, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ErrorNote } from '../../components/common';
import { useApi } from '../../lib/data';
import { useFormat } from '../../lib/format';
import { STATUS_COLORS } from './channel-types';

/** One push: its text, its message page and the result of every recipient. */
export function MessageDetail({ id, onClose }: { id: string; onClose: () => void }) {
  const { t } = useTranslation();
  const f = useFormat();
  const message = useApi('push.getMessage', { id }, { live: false });
  const m = message.data && 'results' in message.data ? message.data : undefined;
  return (
    <Modal opened onClose={onClose} title={m?.title ?? t('common.loading')} size="xl">
      <ErrorNote error={message.error} onRetry={message.reload} />
      {!m ? (
        <Skeleton h={200} />
      ) : (
        <Stack gap="sm">
          <Group gap="md">
            <Badge color={STATUS_COLORS[m.status] ?? 'gray'} variant="light">
              {t(`push.statuses.${m.status as 'success'}`)}
            </Badge>
            <Text size="sm">{m.appName}</Text>
            <Text size="sm" c="dimmed">
              {f.date(m.createdAt, 'datetime')}
            </Text>
            {m.url && (
              <Anchor href={m.url} target="_blank" rel="noreferrer" size="sm">
                {t('push.messagePage')}
              </Anchor>
            )}
          </Group>
          {m.html && (
            // The server's rendering of the Markdown through the message page's allow-list (sanitize-html): never raw text as HTML.
            <div className="pp-markdown pp-message-body" data-testid="message-body" dangerouslySetInnerHTML={{ __html: m.html }} />
          )}
          <Title order={3} size="h6">
            {t('push.results')}
          </Title>
          {m.results.length === 0 ? (
            <Text size="sm" c="dimmed">
              {t('push.noResults')}
            </Text>
          ) : (
            <Table aria-label={t('push.results')}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('push.recipient')}</Table.Th>
                  <Table.Th>{t('push.status')}</Table.Th>
                  <Table.Th>{t('push.detail')}</Table.Th>
                  <Table.Th ta="right">{t('push.attempts')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {m.results.map((r, i) => (
                  <Table.Tr key={`${r.recipient}-${i}`}>
                    <Table.Td>
                      <Text size="sm">{r.name || r.recipient}</Text>
                      {r.name && (
                        <Text size="xs" c="dimmed" className="pp-code">
                          {r.recipient}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Badge color={r.ok ? 'teal' : 'red'} variant="light">
                        {r.ok ? t('push.delivered') : t(`push.errorClasses.${r.class as 'systemic'}`, { defaultValue: r.class })}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      <Text size="xs">{r.ok ? (r.msgId ? `msgid ${r.msgId}` : '') : `${r.errcode ?? ''} ${r.errmsg ?? ''}`}</Text>
                    </Table.Td>
                    <Table.Td ta="right">{r.attempts}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Stack>
      )}
    </Modal>
  );
}
