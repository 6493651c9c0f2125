import { Skeleton, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Empty, ErrorNote } from '../../components/common';
import { useApi } from '../../lib/data';
import { timeZone } from '../../lib/format';
import { Link } from '../../lib/router';
import { BudgetBar } from './BudgetBar';
import { monthOf } from './month';
import { Card } from '../../components/Card';

/** The dashboard's card: this month's budgets and how much of each is used. */
export function BudgetsCard() {
  const { t } = useTranslation();
  const budgets = useApi('budget.query', { month: monthOf(Date.now()), timeZone });
  return (
    <Card id="dash-budgets" title={t('budgets.cardTitle')} aside={<Link href="/budgets">{t('budgets.allBudgets')}</Link>}>
      {budgets.error ? (
        <ErrorNote error={budgets.error} />
      ) : !budgets.data ? (
        <Skeleton h={120} />
      ) : budgets.data.list.length === 0 ? (
        <Empty>{t('budgets.noBudgets')}</Empty>
      ) : (
        <Stack gap="md">
          {budgets.data.list.slice(0, 5).map((b) => (
            <div key={b.id}>
              <Text size="sm" fw={500} truncate>
                {b.name}
              </Text>
              <BudgetBar budget={b} compact />
            </div>
          ))}
        </Stack>
      )}
    </Card>
  );
}
