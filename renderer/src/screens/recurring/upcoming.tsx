import { Badge, Button, Group, Skeleton, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { call } from '../../api/client';
import { Empty, ErrorNote } from '../../components/common';
import { useAction, useApi } from '../../lib/data';
import { useErrorText } from '../../lib/errors';
import { useFormat } from '../../lib/format';

/**
 * The coming occurrences of recurring records (recurring.upcoming), overdue `confirm` ones first
 * and flagged; each `confirm` one has its one-tap Confirm, every one a Skip. `limit` shortens the
 * list (the dashboard card).
 */
export function UpcomingList({ days = 30, limit }: { days?: number; limit?: number }) {
  const { t } = useTranslation();
  const f = useFormat();
  const errorText = useErrorText();
  const upcoming = useApi('recurring.upcoming', { days });
  const action = useAction();
  const list = upcoming.data?.list ?? [];
  const shown = limit ? list.slice(0, limit) : list;
  return (
    <>
      <ErrorNote error={upcoming.error} onRetry={upcoming.reload} />
      {action.error && (
        <Text c="red" size="sm" role="alert" mb="xs">
          {errorText(action.error)}
        </Text>
      )}
      {!upcoming.data ? (
        <Skeleton h={120} />
      ) : shown.length === 0 ? (
        <Empty>{t('recurring.noUpcoming')}</Empty>
      ) : (
        <Stack gap={6} data-testid="upcoming-list">
          {shown.map((o) => (
            <Group key={`${o.id}:${o.date}`} justify="space-between" wrap="nowrap" data-testid="upcoming-item" data-date={o.date} aria-label={`${o.name} ${o.date}`}>
              <div style={{ minWidth: 0 }}>
                <Text size="sm" fw={600} truncate>
                  {o.name}
                </Text>
                <Group gap={6}>
                  <Text size="xs" c="dimmed">
                    {f.date(o.at)}
                  </Text>
                  {o.overdue && (
                    <Badge size="xs" color="orange" variant="light">
                      {t('recurring.overdue')}
                    </Badge>
                  )}
                  {o.mode === 'confirm' && !o.overdue && (
                    <Badge size="xs" color="gray" variant="light">
                      {t('recurring.toConfirm')}
                    </Badge>
                  )}
                </Group>
              </div>
              <Group gap={6} wrap="nowrap">
                <Text size="sm" className={o.type === 'income' ? 'pp-income pp-num' : o.type === 'expense' ? 'pp-expense pp-num' : 'pp-num'}>
                  {f.money(o.amount, o.currency)}
                </Text>
                {o.mode === 'confirm' && (
                  <Button size="compact-xs" disabled={action.busy} onClick={() => void action.run(() => call('recurring.confirm', { id: o.id, date: o.date }))}>
                    {t('recurring.confirm')}
                  </Button>
                )}
                <Button size="compact-xs" variant="default" disabled={action.busy} onClick={() => void action.run(() => call('recurring.skip', { id: o.id, date: o.date }))}>
                  {t('recurring.skip')}
                </Button>
              </Group>
            </Group>
          ))}
        </Stack>
      )}
    </>
  );
}
