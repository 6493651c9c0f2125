import { useState, type SubmitEvent } from 'react';
import { Checkbox, Group, Modal, Select, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { call } from '../../api/client';
import { FormActions } from '../../components/common';
import { checkFields, NumberField, useNumberField } from '../../components/NumberField';
import { useAction } from '../../lib/data';
import { useErrorText } from '../../lib/errors';
import { addDays, currencyDigits, fromDateInput, toDateInput } from '../../lib/format';
import { useAssets } from '../../lib/ledger';
import { CurrencySelect } from '../../components/CurrencySelect';
import { focusFirstInvalid, LimitedTextarea, LimitedTextInput, tooLong } from '../../components/LimitedText';
import { textLimit } from '../../api/param-limits';
import type { Goal } from './goal';
import { useRewardToast } from './rewards';
import { DateField } from '../../components/DateField';

const GOAL_CATEGORIES = ['emergency', 'travel', 'home', 'car', 'education', 'wedding', 'retirement', 'health', 'gadget', 'gift', 'investment', 'other'] as const;

/** New goal, or edit one (`goal`): every field but the currency (the server keeps it), sending only what changed (savings.updateGoal). */
export function GoalEditor({ goal, onClose }: { goal?: Goal; onClose: () => void }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const assets = useAssets();
  const toast = useRewardToast();
  const [title, setTitle] = useState(goal?.title ?? '');
  const [currency, setCurrency] = useState<string | null>(goal?.currency ?? null);
  const initialEnd = toDateInput(goal ? goal.endDate : addDays(Date.now(), 90));
  const [end, setEnd] = useState(initialEnd);
  const [category, setCategory] = useState<string>(goal?.category ?? 'other');
  const [priority, setPriority] = useState<string>(goal?.priority ?? 'medium');
  const [description, setDescription] = useState(goal?.description ?? '');
  const [isPublic, setIsPublic] = useState(goal?.isPublic ?? false);
  const { run, busy, error } = useAction();
  const cur = currency ?? assets.baseCurrency;
  const target = useNumberField({ kind: 'money', currency: cur, decimals: currencyDigits(cur), sign: 'positive' }, goal ? String(goal.targetAmount) : '');
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget;
    const endDate = fromDateInput(end);
    if (endDate === null || !checkFields(target)) return;
    if (tooLong(title, textLimit('savings.createGoal', 'title')) || tooLong(description, textLimit('savings.createGoal', 'description'))) {
      focusFirstInvalid(form);
      return;
    }
    if (goal) {
      const saved = await run(() =>
        call('savings.updateGoal', {
          goalId: goal.id,
          ...goalChanges(goal, { title, description, targetAmount: target.value ?? 0, end, initialEnd, category, priority, isPublic }),
        }),
      );
      if (saved) {
        toast(saved.rewards);
        onClose();
      }
      return;
    }
    const created = await run(() =>
      call('savings.createGoal', {
        title: title.trim(),
        targetAmount: target.value ?? 0,
        currency: cur,
        endDate: endDate + 86_400_000 - 1,
        category: category as Goal['category'],
        priority: priority as Goal['priority'],
        isPublic,
        description: description || undefined,
      }),
    );
    if (created) {
      toast(created.rewards);
      onClose();
    }
  };
  const fieldErr = (field: string) => (error && error.field === field ? errorText(error) : null);
  const general = error && !['title', 'targetAmount', 'endDate', 'currency'].includes(error.field ?? '') && error.code !== 3003 ? errorText(error) : null;
  return (
    <Modal opened onClose={onClose} title={goal ? t('savings.editGoal', { title: goal.title }) : t('savings.newGoal')}>
      <form onSubmit={(event) => void submit(event)}>
        <Stack gap="sm">
          <LimitedTextInput
            label={t('savings.goalTitle')}
            placeholder={t('savings.goalTitlePlaceholder')}
            value={title}
            onChange={setTitle}
            required
            max={textLimit('savings.createGoal', 'title')}
            error={fieldErr('title')}
            data-autofocus
          />
          <Group grow align="flex-start">
            <NumberField field={target} label={t('savings.target')} required error={fieldErr('targetAmount') ?? (error?.code === 3003 ? errorText(error) : null)} />
            <CurrencySelect
              label={t('assets.currency')}
              value={cur}
              onChange={setCurrency}
              error={fieldErr('currency')}
              disabled={!!goal}
              description={goal ? t('savings.currencyFixed') : undefined}
            />
          </Group>
          <Group grow align="flex-start">
            <DateField label={t('savings.endDate')} value={end} onChange={setEnd} required error={fieldErr('endDate')} />
            <Select
              label={t('savings.category')}
              data={GOAL_CATEGORIES.map((c) => ({ value: c, label: t(`savings.categories.${c}`) }))}
              value={category}
              onChange={(v) => v && setCategory(v)}
              allowDeselect={false}
            />
            <Select
              label={t('savings.priority')}
              data={(['low', 'medium', 'high'] as const).map((p) => ({ value: p, label: t(`savings.priorities.${p}`) }))}
              value={priority}
              onChange={(v) => v && setPriority(v)}
              allowDeselect={false}
            />
          </Group>
          <LimitedTextarea
            label={t('assets.description')}
            value={description}
            onChange={setDescription}
            max={textLimit('savings.createGoal', 'description')}
            error={fieldErr('description')}
            autosize
            minRows={2}
          />
          <Checkbox label={t('savings.isPublic')} description={t('savings.isPublicHint')} checked={isPublic} onChange={(e) => setIsPublic(e.currentTarget.checked)} />
          <FormActions
            error={general}
            onCancel={onClose}
            busy={busy}
            disabled={!title.trim() || target.text.trim() === ''}
            submitLabel={goal ? t('savings.saveGoal') : t('savings.createGoal')}
          />
        </Stack>
      </form>
    </Modal>
  );
}

interface GoalForm {
  title: string;
  description: string;
  targetAmount: number;
  end: string;
  initialEnd: string;
  category: string;
  priority: string;
  isPublic: boolean;
}

/** What the edit changes (an unchanged deadline is not sent: the server refuses a past one, which an old goal may have). */
function goalChanges(goal: Goal, form: GoalForm) {
  const endDay = fromDateInput(form.end);
  return {
    ...(form.title.trim() !== goal.title ? { title: form.title.trim() } : {}),
    ...(form.description !== goal.description ? { description: form.description } : {}),
    ...(form.targetAmount !== goal.targetAmount ? { targetAmount: form.targetAmount } : {}),
    ...(form.end !== form.initialEnd && endDay !== null ? { endDate: endDay + 86_400_000 - 1 } : {}),
    ...(form.category !== goal.category ? { category: form.category as Goal['category'] } : {}),
    ...(form.priority !== goal.priority ? { priority: form.priority as Goal['priority'] } : {}),
    ...(form.isPublic !== goal.isPublic ? { isPublic: form.isPublic } : {}),
  };
}
