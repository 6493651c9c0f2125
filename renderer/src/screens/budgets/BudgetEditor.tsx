import { useState, type SubmitEvent } from 'react';
import { Checkbox, Modal, MultiSelect, Stack, Switch, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { call } from '../../api/client';
import { FormActions } from '../../components/common';
import { checkFields, NumberField, useNumberField } from '../../components/NumberField';
import { focusFirstInvalid, LimitedTextInput, tooLong } from '../../components/LimitedText';
import { textLimit } from '../../api/param-limits';
import { useAction } from '../../lib/data';
import { useErrorText } from '../../lib/errors';
import { currencyDigits } from '../../lib/format';
import { useAssets, useCategories } from '../../lib/ledger';
import type { BudgetFigure } from './budget';

/** New budget (in the base currency), or edit one: name, amount, categories or all, start month, rollover. */
export function BudgetEditor({ budget, month, onClose }: { budget?: BudgetFigure; month: string; onClose: () => void }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const assets = useAssets();
  const categories = useCategories();
  const currency = budget?.currency ?? assets.baseCurrency;
  const [name, setName] = useState(budget?.name ?? '');
  const [all, setAll] = useState(budget?.allCategories ?? false);
  const [chosen, setChosen] = useState<string[]>(budget?.categories ?? []);
  const [startMonth, setStartMonth] = useState(budget?.startMonth ?? month);
  const [rollover, setRollover] = useState(budget?.rollover ?? false);
  const amount = useNumberField({ kind: 'money', currency, decimals: currencyDigits(currency), sign: 'positive' }, budget ? String(budget.amount) : '');
  const { run, busy, error } = useAction();

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget;
    if (!checkFields(amount)) return;
    if (tooLong(name, textLimit('budget.create', 'name'))) {
      focusFirstInvalid(form);
      return;
    }
    const fields = { name: name.trim(), amount: amount.value ?? 0, categories: all ? ('all' as const) : chosen, startMonth, rollover };
    const saved = await run(() => (budget ? call('budget.update', { id: budget.id, ...fields }) : call('budget.create', fields)));
    if (saved) onClose();
  };
  const fieldErr = (field: string) => (error && error.field === field ? errorText(error) : null);
  const general = error && !['name', 'amount', 'categories', 'startMonth'].includes(error.field ?? '') ? errorText(error) : null;
  return (
    <Modal opened onClose={onClose} title={budget ? t('budgets.editBudget', { name: budget.name }) : t('budgets.newBudget')}>
      <form onSubmit={(event) => void submit(event)}>
        <Stack gap="sm">
          <LimitedTextInput
            label={t('budgets.name')}
            placeholder={t('budgets.namePlaceholder')}
            value={name}
            onChange={setName}
            required
            max={textLimit('budget.create', 'name')}
            error={fieldErr('name')}
            data-autofocus
          />
          <NumberField field={amount} label={t('budgets.amount', { currency })} required error={fieldErr('amount')} />
          <Checkbox label={t('budgets.allCategories')} checked={all} onChange={(e) => setAll(e.currentTarget.checked)} />
          {!all && (
            <MultiSelect
              label={t('budgets.categories')}
              data={categories.expense.map((c) => ({ value: c.id, label: c.name }))}
              value={chosen}
              onChange={setChosen}
              searchable
              required
              error={fieldErr('categories')}
            />
          )}
          <TextInput
            type="month"
            label={t('budgets.startMonth')}
            value={startMonth}
            onChange={(e) => setStartMonth(e.currentTarget.value)}
            required
            error={fieldErr('startMonth')}
          />
          <Switch label={t('budgets.rollover')} description={t('budgets.rolloverHint')} checked={rollover} onChange={(e) => setRollover(e.currentTarget.checked)} />
          <FormActions
            error={general}
            onCancel={onClose}
            busy={busy}
            disabled={!name.trim() || amount.text.trim() === '' || (!all && chosen.length === 0) || !startMonth}
            submitLabel={budget ? t('budgets.save') : t('budgets.create')}
          />
        </Stack>
      </form>
    </Modal>
  );
}
