import { useState } from 'react';
import { ActionIcon, Badge, Button, Group, Modal, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { call } from '../../api/client';
import { Empty, ErrorNote, PageHeader } from '../../components/common';
import { Icon } from '../../components/icons';
import { useAction, useApi } from '../../lib/data';
import { timeZone, useFormat } from '../../lib/format';
import type { BudgetFigure } from './budget';
import { BudgetBar } from './BudgetBar';
import { BudgetEditor } from './BudgetEditor';
import { monthOf, monthStartMs, shiftMonth } from './month';

/** Budgets of one month (docs/budgets.md): a bar each, what is left or overspent, what rolled over, what changed today. */
export function BudgetsPage() {
  const { t } = useTranslation();
  const f = useFormat();
  const thisMonth = monthOf(Date.now());
  const [month, setMonth] = useState(thisMonth);
  const [editing, setEditing] = useState<BudgetFigure | 'new' | null>(null);
  const [deleting, setDeleting] = useState<BudgetFigure | null>(null);
  const budgets = useApi('budget.query', { month, timeZone });
  const list = budgets.data?.list ?? [];
  const label = f.date(monthStartMs(month), 'month');
  return (
    <div className="pp-page">
      <PageHeader title={t('budgets.title')}>
        <Button onClick={() => setEditing('new')}>{t('budgets.newBudget')}</Button>
      </PageHeader>
      <Group gap="xs" mb="md" role="group" aria-label={t('budgets.monthSwitcher')}>
        <ActionIcon variant="default" aria-label={t('budgets.previousMonth')} onClick={() => setMonth(shiftMonth(month, -1))}>
          ‹
        </ActionIcon>
        <Text fw={600} miw={120} ta="center" aria-live="polite" data-testid="budget-month">
          {label}
        </Text>
        <ActionIcon variant="default" aria-label={t('budgets.nextMonth')} onClick={() => setMonth(shiftMonth(month, 1))}>
          ›
        </ActionIcon>
        {month !== thisMonth && (
          <Button variant="subtle" size="xs" onClick={() => setMonth(thisMonth)}>
            {t('budgets.thisMonth')}
          </Button>
        )}
      </Group>
      <ErrorNote error={budgets.error} onRetry={budgets.reload} />
      {!budgets.data ? (
        <Skeleton h={160} />
      ) : list.length === 0 ? (
        <Empty>{t('budgets.empty')}</Empty>
      ) : (
        <ul className="pp-plain-list" aria-label={t('budgets.listLabel', { month: label })}>
          {list.map((b) => (
            <li key={b.id} className="pp-card" style={{ marginBottom: 12 }}>
              <Group justify="space-between" wrap="nowrap" mb={6}>
                <div style={{ minWidth: 0 }}>
                  <Title order={2} size="h5">
                    {b.name}
                  </Title>
                  <Text size="xs" c="dimmed" truncate>
                    {b.allCategories ? t('budgets.allExpenses') : b.categoryNames.join(', ')} · {f.money(b.amount, b.currency)} {t('budgets.perMonth')}
                  </Text>
                </div>
                <Group gap={4} wrap="nowrap">
                  {b.remaining < 0 && (
                    <Badge color="red" variant="light">
                      {t('budgets.overBadge')}
                    </Badge>
                  )}
                  <ActionIcon variant="subtle" aria-label={t('budgets.edit', { name: b.name })} onClick={() => setEditing(b)}>
                    <Icon name="edit" />
                  </ActionIcon>
                  <ActionIcon variant="subtle" color="red" aria-label={t('budgets.delete', { name: b.name })} onClick={() => setDeleting(b)}>
                    <Icon name="trash" />
                  </ActionIcon>
                </Group>
              </Group>
              <BudgetBar budget={b} />
            </li>
          ))}
        </ul>
      )}
      {budgets.data && budgets.data.missingRates.length > 0 && (
        <Text size="xs" c="dimmed" mt="sm">
          {t('budgets.missingRates', { pairs: budgets.data.missingRates.map((r) => `${r.from}→${r.to}`).join(', ') })}
        </Text>
      )}
      {editing && <BudgetEditor budget={editing === 'new' ? undefined : editing} month={month} onClose={() => setEditing(null)} />}
      {deleting && <DeleteBudget budget={deleting} onClose={() => setDeleting(null)} />}
    </div>
  );
}

function DeleteBudget({ budget, onClose }: { budget: BudgetFigure; onClose: () => void }) {
  const { t } = useTranslation();
  const { run, busy, error } = useAction();
  return (
    <Modal opened onClose={onClose} title={t('budgets.deleteTitle', { name: budget.name })}>
      <Stack gap="sm">
        <Text size="sm">{t('budgets.deleteText')}</Text>
        <ErrorNote error={error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button
            color="red"
            loading={busy}
            onClick={() =>
              void run(() => call('budget.delete', { id: budget.id })).then((done) => {
                if (done) onClose();
              })
            }
          >
            {t('budgets.deleteConfirm')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
