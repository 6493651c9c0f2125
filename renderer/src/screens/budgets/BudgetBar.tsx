import { Group, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ProgressBar } from '../../components/common';
import { useFormat } from '../../lib/format';
import type { BudgetFigure } from './budget';

/** One budget's month: a bar (red when overspent), spent of available, what is left or over. */
export function BudgetBar({ budget, compact = false }: { budget: BudgetFigure; compact?: boolean }) {
  const { t } = useTranslation();
  const f = useFormat();
  const over = budget.remaining < 0;
  const available = budget.amount + budget.carried;
  const money = (amount: number) => f.money(amount, budget.currency);
  return (
    <div data-testid={`budget-bar-${budget.name}`} data-over={over ? 'true' : 'false'}>
      <ProgressBar value={budget.progress * 100} label={t('budgets.barLabel', { name: budget.name, percent: f.percent(budget.progress, 0) })} tone={over ? 'expense' : undefined} />
      <Group justify="space-between" gap="xs" mt={4} wrap="nowrap">
        <Text size="xs" c="dimmed" className="pp-num">
          {t('budgets.spentOf', { spent: money(budget.spent), available: money(available) })}
        </Text>
        <Text size="xs" fw={500} className={over ? 'pp-expense pp-num' : 'pp-num'} c={over ? 'red' : undefined}>
          {over ? t('budgets.over', { amount: money(-budget.remaining) }) : t('budgets.left', { amount: money(budget.remaining) })}
        </Text>
      </Group>
      {!compact && (budget.rollover || budget.spentToday > 0) && (
        <Group gap="md" mt={2}>
          {budget.rollover && (
            <Text size="xs" c="dimmed" className="pp-num">
              {t('budgets.carried', { amount: f.money(budget.carried, budget.currency, { sign: true }) })}
            </Text>
          )}
          {budget.spentToday > 0 && (
            <Text size="xs" c="dimmed" className="pp-num">
              {t('budgets.today', { amount: money(budget.spentToday) })}
            </Text>
          )}
        </Group>
      )}
    </div>
  );
}
