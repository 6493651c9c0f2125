import { useState } from 'react';
import { ActionIcon, Badge, Button, Group, Skeleton, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { call } from '../../api/client';
import { Empty, ErrorNote, PageHeader } from '../../components/common';
import { Icon } from '../../components/icons';
import { useAction, useApi } from '../../lib/data';
import { useErrorText } from '../../lib/errors';
import { useFormat } from '../../lib/format';
import type { RecurringRule } from './rule';
import { RuleEditor } from './RuleEditor';
import { UpcomingList } from './upcoming';
import { Card } from '../../components/Card';

/** Recurring records: what comes in the next 30 days (confirm, skip) and the rules (create, edit, delete). */
export function RecurringPage() {
  const { t } = useTranslation();
  const [editing, setEditing] = useState<RecurringRule | 'new' | null>(null);
  const rules = useApi('recurring.query', { page: 1, pageSize: 200 });
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
          <ErrorNote error={rules.error} onRetry={rules.reload} />
          {!rules.data ? (
            <Skeleton h={120} />
          ) : rules.data.list.length === 0 ? (
            <Empty>{t('recurring.noRules')}</Empty>
          ) : (
            <Stack gap="xs">
              {rules.data.list.map((rule) => (
                <RuleRow key={rule.id} rule={rule} onEdit={() => setEditing(rule)} />
              ))}
            </Stack>
          )}
        </Card>
      </Stack>
      {editing && <RuleEditor rule={editing === 'new' ? undefined : editing} onClose={() => setEditing(null)} />}
    </div>
  );
}

/** "Every 2 weeks · Mon, Wed", "Monthly · Last day of the month"… */
export function useRuleText() {
  const { t } = useTranslation();
  return (rule: RecurringRule['rule']) => {
    const freq = rule.freq as 'daily' | 'weekly' | 'monthly' | 'yearly';
    // One period is "Monthly" / "每月" (Chinese has no singular form: "每 1 个月" before), more are "Every 2 months" / "每 2 个月".
    const every = rule.interval === 1 ? t(`recurring.freqs.${freq}`) : t(`recurring.every.${freq}`, { count: rule.interval });
    if (rule.byWeekday?.length) return `${every} · ${rule.byWeekday.map((d) => t(`recurring.weekdays.${d as 'MO'}`)).join(', ')}`;
    if (rule.byMonthDay === -1) return `${every} · ${t('recurring.lastDay')}`;
    if (rule.byMonthDay) return `${every} · ${t('recurring.onDay', { day: rule.byMonthDay })}`;
    return every;
  };
}

function RuleRow({ rule, onEdit }: { rule: RecurringRule; onEdit: () => void }) {
  const { t } = useTranslation();
  const f = useFormat();
  const errorText = useErrorText();
  const ruleText = useRuleText();
  const remove = useAction();
  return (
    <Group justify="space-between" wrap="nowrap" data-testid="recurring-rule" aria-label={rule.name}>
      <div style={{ minWidth: 0 }}>
        <Group gap={6}>
          <Text fw={600} size="sm" truncate>
            {rule.name}
          </Text>
          <Badge size="xs" variant="light" color={rule.mode === 'auto' ? 'blue' : 'gray'}>
            {t(`recurring.modes.${rule.mode}`)}
          </Badge>
        </Group>
        <Text size="xs" c="dimmed">
          {f.money(rule.template.amount, rule.template.currency)} · {ruleText(rule.rule)}
          {rule.next ? ` · ${t('recurring.next', { date: f.date(rule.next.at) })}` : ` · ${t('recurring.ended')}`}
        </Text>
        {remove.error && (
          <Text size="xs" c="red">
            {errorText(remove.error)}
          </Text>
        )}
      </div>
      <Group gap={4} wrap="nowrap">
        <ActionIcon variant="subtle" aria-label={t('recurring.edit', { name: rule.name })} onClick={onEdit}>
          <Icon name="edit" />
        </ActionIcon>
        <ActionIcon
          variant="subtle"
          color="red"
          aria-label={t('recurring.delete', { name: rule.name })}
          disabled={remove.busy}
          onClick={() => {
            if (window.confirm(t('recurring.deleteConfirm', { name: rule.name }))) void remove.run(() => call('recurring.delete', { id: rule.id }));
          }}
        >
          <Icon name="trash" />
        </ActionIcon>
      </Group>
    </Group>
  );
}
