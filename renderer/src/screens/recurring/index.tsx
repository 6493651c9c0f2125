import { useState } from 'react';
import { ActionIcon, Badge, Button, Group, Skeleton, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { call } from '../../api/client';
import { Empty, ErrorNote, PageHeader } from '../../components/common';
import { Icon } from '../../components/icons';
import { useAction, useApi } from '../../lib/data';
import { useErrorText } from '../../lib/errors';
import { useFormat } from '../../lib/format';
import type { RecurringItem } from './recurring-item';
import { RecurringEditor } from './RecurringEditor';
import { UpcomingList } from './upcoming';
import { Card } from '../../components/Card';

/** Recurring records: what comes in the next 30 days (confirm, skip) and the recurring items (create, edit, delete). */
export function RecurringPage() {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<RecurringItem | 'new' | null>(null);
  const items = useApi('recurring.query', { page: 1, pageSize: 200 });
  return (
    <div className="pp-page">
      <PageHeader title={t('recurring.title')}>
        <Button onClick={() => setEditing('new')}>{t('recurring.new')}</Button>
      </PageHeader>
      <Stack gap="md">
        <Card id="recurring-upcoming" title={t('recurring.upcoming')}>
          <UpcomingList days={30} />
        </Card>
        <Card id="recurring-rules" title={t('recurring.rules')}>
          <ErrorNote error={items.error} onRetry={items.reload} />
          {!items.data ? (
            <Skeleton h={120} />
          ) : items.data.list.length === 0 ? (
            <Empty>{t('recurring.noRules')}</Empty>
          ) : (
            <Stack gap="xs">
              {items.data.list.map((item) => (
                <RecurringRow key={item.id} item={item} onEdit={() => setEditing(item)} />
              ))}
            </Stack>
          )}
        </Card>
      </Stack>
      {editing && <RecurringEditor item={editing === 'new' ? undefined : editing} onClose={() => setEditing(null)} />}
    </div>
  );
}

/** "Every 2 weeks · Mon, Wed", "Monthly · Last day of the month"… */
export function useScheduleText() {
  const { t } = useTranslation();
  return (schedule: RecurringItem['rule']) => {
    const freq = schedule.freq;
    // One period is "Monthly" / "每月" (Chinese has no singular form: "每 1 个月" before), more are "Every 2 months" / "每 2 个月".
    const every = schedule.interval === 1 ? t(`recurring.freqs.${freq}`) : t(`recurring.every.${freq}`, { count: schedule.interval });
    if (schedule.byWeekday?.length) return `${every} · ${schedule.byWeekday.map((d) => t(`recurring.weekdays.${d as 'MO'}`)).join(', ')}`;
    if (schedule.byMonthDay === -1) return `${every} · ${t('recurring.lastDay')}`;
    if (schedule.byMonthDay) return `${every} · ${t('recurring.onDay', { day: schedule.byMonthDay })}`;
    return every;
  };
}

function RecurringRow({ item, onEdit }: { item: RecurringItem; onEdit: () => void }) {
  const { t } = useTranslation();
  const f = useFormat();
  const errorText = useErrorText();
  const scheduleText = useScheduleText();
  const remove = useAction();
  return (
    <Group justify="space-between" wrap="nowrap" data-testid="recurring-rule" aria-label={item.name}>
      <div style={{ minWidth: 0 }}>
        <Group gap={6}>
          <Text fw={600} size="sm" truncate>
            {item.name}
          </Text>
          <Badge size="xs" variant="light" color={item.mode === 'auto' ? 'blue' : 'gray'}>
            {t(`recurring.modes.${item.mode}`)}
          </Badge>
        </Group>
        <Text size="xs" c="dimmed">
          {f.money(item.template.amount, item.template.currency)} · {scheduleText(item.rule)}
          {item.next ? ` · ${t('recurring.next', { date: f.date(item.next.at) })}` : ` · ${t('recurring.ended')}`}
        </Text>
        {remove.error && (
          <Text size="xs" c="red">
            {errorText(remove.error)}
          </Text>
        )}
      </div>
      <Group gap={4} wrap="nowrap">
        <ActionIcon variant="subtle" aria-label={t('recurring.edit', { name: item.name })} onClick={onEdit}>
          <Icon name="edit" />
        </ActionIcon>
        <ActionIcon
          variant="subtle"
          color="red"
          aria-label={t('recurring.delete', { name: item.name })}
          disabled={remove.busy}
          onClick={() => {
            if (window.confirm(t('recurring.deleteConfirm', { name: item.name }))) void remove.run(() => call('recurring.delete', { id: item.id }));
          }}
        >
          <Icon name="trash" />
        </ActionIcon>
      </Group>
    </Group>
  );
}
