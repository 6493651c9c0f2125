import { useState, type SubmitEvent } from 'react';
import { Checkbox, Group, Modal, Select, Stack, TagsInput, Text, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { call } from '../../../api/client';
import { FormActions } from '../../../components/common';
import { checkFields, NumberField, useNumberField } from '../../../components/NumberField';
import { useAction } from '../../../lib/data';
import { useErrorText } from '../../../lib/errors';
import { currencyDigits } from '../../../lib/format';
import { useAssets, useCategories } from '../../../lib/ledger';
import { OPS_OF_FIELD, RULE_FIELDS, type ImportRule, type RuleField, type RuleMatch, type RuleOp, type RuleSet } from './rule-words';

/** What the form starts from: a rule to edit, or a new rule (possibly prefilled from a suggestion). */
export type RuleDraft = { rule: ImportRule } | { match?: RuleMatch; set?: RuleSet };

/**
 * New rule or edit one: when (a field, an operator that fits it and a value: text, an amount or
 * one of the assets) and what it sets (a category, tags, a description), and whether inbox drafts
 * it matches are recorded at once.
 */
export function RuleForm({ draft, onClose }: { draft: RuleDraft; onClose: () => void }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const assets = useAssets();
  const categories = useCategories();
  const rule = 'rule' in draft ? draft.rule : undefined;
  const start = rule ?? { match: 'match' in draft ? draft.match : undefined, set: 'set' in draft ? draft.set : undefined, autoConfirm: false };
  const [field, setField] = useState<RuleField>(start.match?.field ?? 'description');
  const [op, setOp] = useState<RuleOp>(start.match?.op ?? 'contains');
  const [text, setText] = useState(start.match && start.match.field !== 'amount' && start.match.field !== 'asset' ? String(start.match.value) : '');
  const [asset, setAsset] = useState<string | null>(start.match?.field === 'asset' ? String(start.match.value) : null);
  const currency = assets.baseCurrency;
  const amount = useNumberField(
    { kind: 'money', currency, decimals: currencyDigits(currency), sign: 'nonNegative' },
    start.match?.field === 'amount' ? String(start.match.value) : '',
  );
  const [category, setCategory] = useState<string | null>(start.set?.category ?? null);
  const [tags, setTags] = useState<string[]>(start.set?.tags ?? []);
  const [description, setDescription] = useState(start.set?.description ?? '');
  const [autoConfirm, setAutoConfirm] = useState(start.autoConfirm);
  const { run, busy, error } = useAction();

  const changeField = (next: RuleField) => {
    setField(next);
    if (!OPS_OF_FIELD[next].includes(op)) setOp(OPS_OF_FIELD[next][0]);
  };
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    if (field === 'amount' && !checkFields(amount)) return;
    const value = field === 'amount' ? (amount.value ?? 0) : field === 'asset' ? (asset ?? '') : text;
    const match = { field, op, value };
    const set = { ...(category ? { category } : {}), ...(tags.length > 0 ? { tags } : {}), ...(description.trim() ? { description: description.trim() } : {}) };
    const saved = await run(() => (rule ? call('rule.update', { id: rule.id, match, set, autoConfirm }) : call('rule.create', { match, set, autoConfirm })));
    if (saved) onClose();
  };

  // A name can be both an expense and an income category: listed once (the rule sets it by name).
  const expenseNames = categories.expense.map((c) => c.name);
  const categoryOptions = [
    { group: t('common.expense'), items: expenseNames },
    { group: t('common.income'), items: categories.income.map((c) => c.name).filter((name) => !expenseNames.includes(name)) },
  ].filter((g) => g.items.length > 0);
  const valueError = error && error.field === 'match' && error.path === 'match.value' ? errorText(error) : null;
  const setError = error && error.path?.startsWith('set') ? errorText(error) : null;
  const otherError = error && !valueError && !setError ? errorText(error) : null;
  return (
    <Modal opened onClose={onClose} title={rule ? t('rules.editTitle') : t('rules.new')} size="lg">
      <form onSubmit={(event) => void submit(event)} aria-label={t('rules.form')}>
        <Stack gap="sm">
          <Text size="sm" fw={600}>
            {t('rules.whenTitle')}
          </Text>
          <Group grow align="flex-start">
            <Select
              label={t('rules.field')}
              data={RULE_FIELDS.map((f) => ({ value: f, label: t(`rules.fields.${f}`) }))}
              value={field}
              onChange={(v) => v && changeField(v)}
              allowDeselect={false}
              data-autofocus
            />
            <Select
              label={t('rules.op')}
              data={OPS_OF_FIELD[field].map((o) => ({ value: o, label: t(`rules.ops.${field === 'asset' ? 'is' : o}`) }))}
              value={op}
              onChange={(v) => v && setOp(v)}
              allowDeselect={false}
            />
            {field === 'asset' ? (
              <Select
                label={t('rules.valueAsset')}
                data={assets.active.map((a) => ({ value: a.id, label: `${a.name} (${a.currency})` }))}
                value={asset}
                onChange={setAsset}
                required
                error={valueError}
              />
            ) : field === 'amount' ? (
              <NumberField field={amount} label={t('rules.valueAmount', { currency })} required error={valueError} />
            ) : (
              <TextInput
                label={op === 'regex' ? t('rules.valuePattern') : t('rules.valueText')}
                value={text}
                onChange={(e) => setText(e.currentTarget.value)}
                required
                maxLength={op === 'regex' ? 200 : 500}
                error={valueError}
              />
            )}
          </Group>
          {field !== 'asset' && field !== 'amount' && (
            <Text size="xs" c="dimmed">
              {t(op === 'regex' ? 'rules.regexHint' : 'rules.textHint')}
            </Text>
          )}
          <Text size="sm" fw={600}>
            {t('rules.thenTitle')}
          </Text>
          <Select label={t('rules.setCategory')} data={categoryOptions} value={category} onChange={setCategory} clearable searchable />
          <TagsInput label={t('rules.setTags')} value={tags} onChange={setTags} maxTags={20} clearable />
          <TextInput label={t('rules.setDescription')} value={description} onChange={(e) => setDescription(e.currentTarget.value)} maxLength={1000} />
          {setError && (
            <Text size="sm" c="red" role="alert">
              {setError}
            </Text>
          )}
          <Checkbox label={t('rules.autoConfirm')} description={t('rules.autoConfirmHint')} checked={autoConfirm} onChange={(e) => setAutoConfirm(e.currentTarget.checked)} />
          <FormActions error={otherError} onCancel={onClose} busy={busy} submitLabel={rule ? t('rules.save') : t('rules.create')} />
        </Stack>
      </form>
    </Modal>
  );
}
