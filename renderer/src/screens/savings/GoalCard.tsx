import { useState } from 'react';
import { Badge, Button, Group, Menu, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { call } from '../../api/client';
import { ProgressBar } from '../../components/common';
import { checkFields, NumberField, useNumberField } from '../../components/NumberField';
import { useAction } from '../../lib/data';
import { useErrorText } from '../../lib/errors';
import { currencyDigits, useFormat } from '../../lib/format';
import type { Goal } from './goal';
import { GoalEditor } from './GoalEditor';
import { useRewardToast } from './rewards';
import { RowMenu } from '../../components/RowMenu';

export function GoalCard({ goal }: { goal: Goal }) {
  const { t } = useTranslation();
  const f = useFormat();
  const errorText = useErrorText();
  const toast = useRewardToast();
  const amount = useNumberField({ kind: 'money', currency: goal.currency, decimals: currencyDigits(goal.currency), sign: 'positive' });
  const action = useAction();
  const [editing, setEditing] = useState(false);
  const [tooMuch, setTooMuch] = useState(false);
  const contribute = async (sign: 1 | -1) => {
    if (amount.text.trim() === '' || !checkFields(amount)) return;
    // The server refuses a withdrawal beyond what is saved; say so before asking, with the amount in the locale's format.
    setTooMuch(sign < 0 && (amount.value ?? 0) > goal.currentAmount);
    if (sign < 0 && (amount.value ?? 0) > goal.currentAmount) return;
    const result = await action.run(() => call('savings.updateProgress', { goalId: goal.id, amount: sign * (amount.value ?? 0) }));
    if (result) {
      amount.reset();
      toast(result.rewards);
      if (result.status === 'completed') notifications.show({ color: 'teal', title: t('savings.completedTitle'), message: t('savings.completedText', { title: goal.title }) });
    }
  };
  const setStatus = (status: 'active' | 'paused' | 'cancelled') => action.run(() => call('savings.updateGoal', { goalId: goal.id, status }));
  const open = goal.status === 'active';
  return (
    <section className="pp-card" aria-label={goal.title} data-testid={`goal-${goal.title}`}>
      <Group justify="space-between" wrap="nowrap" mb={4}>
        <Title order={2} size="h5" style={{ minWidth: 0 }}>
          <Text inherit truncate>
            {goal.title}
          </Text>
        </Title>
        <Group gap={6} wrap="nowrap">
          <Badge variant="light" color="gray">
            {t(`savings.categories.${goal.category}`)}
          </Badge>
          <Badge
            variant="light"
            color={goal.status === 'completed' ? 'teal' : goal.status === 'active' ? (goal.pace === 'behind' ? 'orange' : 'blue') : 'gray'}
            data-testid="goal-status"
          >
            {goal.status === 'active' ? t(`savings.pace.${goal.pace}`) : t(`savings.status.${goal.status}`)}
          </Badge>
          {goal.status !== 'completed' && (
            <RowMenu label={t('savings.goalActions', { title: goal.title })}>
              <Menu.Item onClick={() => setEditing(true)}>{t('savings.edit')}</Menu.Item>
              {goal.status === 'active' && <Menu.Item onClick={() => void setStatus('paused')}>{t('savings.pause')}</Menu.Item>}
              {(goal.status === 'paused' || goal.status === 'cancelled') && <Menu.Item onClick={() => void setStatus('active')}>{t('savings.resume')}</Menu.Item>}
              {goal.status !== 'cancelled' && <Menu.Item onClick={() => void setStatus('cancelled')}>{t('savings.cancelGoal')}</Menu.Item>}
              <Menu.Item color="red" onClick={() => void action.run(() => call('savings.deleteGoal', { goalId: goal.id }))}>
                {t('savings.deleteGoal')}
              </Menu.Item>
            </RowMenu>
          )}
        </Group>
      </Group>
      <ProgressBar value={goal.percent} label={t('savings.progressOf', { title: goal.title })} />
      <Group justify="space-between" mt={6}>
        <Text size="sm" className="pp-num" data-testid="goal-amounts">
          {f.money(goal.currentAmount, goal.currency)} / {f.money(goal.targetAmount, goal.currency)} ({f.percent(goal.percent / 100, 0)})
        </Text>
        <Text size="xs" c="dimmed">
          {goal.status === 'completed' && goal.completedAt
            ? t('savings.completedOn', { date: f.date(goal.completedAt) })
            : t('savings.daysLeft', { count: Math.max(0, goal.daysLeft), date: f.date(goal.endDate) })}
        </Text>
      </Group>
      {open && goal.dailyNeeded > 0 && (
        <Text size="xs" c="dimmed">
          {t('savings.dailyNeeded', { amount: f.money(goal.dailyNeeded, goal.currency) })}
        </Text>
      )}
      {open && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void contribute(1);
          }}
        >
          <Group mt="sm" gap="xs" align="flex-start">
            <NumberField size="xs" field={amount} aria-label={t('savings.contribution', { title: goal.title })} placeholder={t('savings.amountPlaceholder')} w={140} />
            <Button size="xs" type="submit" loading={action.busy} disabled={amount.text.trim() === ''}>
              {t('savings.addMoney')}
            </Button>
            <Button size="xs" variant="default" onClick={() => void contribute(-1)} disabled={amount.text.trim() === '' || action.busy}>
              {t('savings.withdraw')}
            </Button>
          </Group>
        </form>
      )}
      {(tooMuch || action.error) && (
        <Text size="sm" c="red" role="alert" mt={4}>
          {tooMuch ? t('savings.withdrawAtMost', { amount: f.money(goal.currentAmount, goal.currency) }) : errorText(action.error)}
        </Text>
      )}
      {editing && <GoalEditor goal={goal} onClose={() => setEditing(false)} />}
    </section>
  );
}
