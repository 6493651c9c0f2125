import { useState } from 'react';
import { Badge, Button, Code, Group, Select, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { call, type ParamsOf, type ResultOf } from '../../api/client';
import { Amount, ErrorNote } from '../../components/common';
import { RuleBadge } from '../../components/RuleBadge';
import { checkFields, NumberField, useNumberField } from '../../components/NumberField';
import { useAction } from '../../lib/data';
import { currencyDigits, useFormat } from '../../lib/format';
import { useAssets, useCategories } from '../../lib/ledger';

export type InboxDraft = ResultOf<'inbox.query'>['list'][number];
type Overrides = NonNullable<ParamsOf<'inbox.confirm'>['overrides']>;

/**
 * One draft of the inbox: the amount coloured by type, who was paid and when, the asset (to choose
 * when the notice names no card of yours, or to change), the category of the draft's type, the
 * original message (folded), then Confirm — which writes the record — or Dismiss. A notice in
 * another currency than the asset asks for the amount in the asset's currency.
 */
export function DraftCard({ draft }: { draft: InboxDraft }) {
  const { t } = useTranslation();
  const f = useFormat();
  const assets = useAssets();
  const categories = useCategories();
  const [asset, setAsset] = useState<string | null>(draft.asset || null);
  const [category, setCategory] = useState<string | null>(draft.category || null);
  const action = useAction();
  const chosen = asset ? assets.byId.get(asset) : undefined;
  const needsAsset = !chosen;
  const otherCurrency = chosen !== undefined && draft.currency !== '' && chosen.currency !== draft.currency;
  // The amount again: in the asset's currency, or with no more decimals than it has (problem 'badAmount').
  const needsAmount = otherCurrency || (draft.problem === 'badAmount' && chosen?.id === draft.asset);
  const amountCurrency = chosen?.currency ?? draft.currency;
  const amount = useNumberField({ kind: 'money', currency: amountCurrency, decimals: currencyDigits(amountCurrency), sign: 'positive' });
  const title = draft.merchant || draft.description || t(draft.type === 'income' ? 'inbox.noMerchantIncome' : 'inbox.noMerchant');
  const sourceName = t(`inbox.sources.${draft.source}`);

  const confirm = async () => {
    if (needsAsset) return;
    if (needsAmount && !checkFields(amount)) return;
    const overrides: Overrides = {
      ...(asset && asset !== draft.asset ? { asset } : {}),
      ...(category && category !== draft.category ? { category } : {}),
      ...(needsAmount && amount.value !== null ? { amount: amount.value } : {}),
    };
    const done = await action.run(() => call('inbox.confirm', { id: draft.id, ...(Object.keys(overrides).length > 0 ? { overrides } : {}) }));
    if (done) notifications.show({ color: 'teal', message: t('inbox.confirmed', { what: title }) });
  };
  const dismiss = async () => {
    await action.run(() => call('inbox.dismiss', { id: draft.id }));
  };

  const categoryOptions = (draft.type === 'income' ? categories.income : categories.expense).map((c) => c.name);
  return (
    <article className="pp-card" aria-label={t('inbox.draftLabel', { what: title })} data-testid="inbox-draft" data-id={draft.id}>
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <div style={{ minWidth: 0 }}>
          <Text fw={600} truncate title={title}>
            {title}
          </Text>
          {draft.description && draft.description !== draft.merchant && (
            <Text size="sm" lineClamp={2}>
              {draft.description}
            </Text>
          )}
          <Text size="xs" c="dimmed">
            {[f.date(draft.date, 'datetime'), sourceName, draft.cardTail ? t('inbox.card', { tail: draft.cardTail }) : ''].filter(Boolean).join(' · ')}
          </Text>
          <Group gap={4} mt={4}>
            <RuleBadge rules={draft.rules} />
            {draft.problem === 'needsAsset' && needsAsset && (
              <Badge size="xs" color="orange" variant="light">
                {t('inbox.problems.needsAsset')}
              </Badge>
            )}
            {otherCurrency && (
              <Badge size="xs" color="orange" variant="light">
                {t('inbox.problems.currencyMismatch')}
              </Badge>
            )}
          </Group>
        </div>
        <Text fw={700} size="lg" style={{ whiteSpace: 'nowrap' }}>
          <Amount amount={draft.amount} currency={draft.currency || amountCurrency || 'CNY'} type={draft.type} />
        </Text>
      </Group>
      <div className="pp-grid pp-grid-3" style={{ gap: 12, marginTop: 12 }}>
        <Select
          label={t('inbox.asset')}
          data={assets.active.map((a) => ({ value: a.id, label: `${a.name} (${a.currency})` }))}
          value={chosen ? chosen.id : null}
          onChange={setAsset}
          placeholder={t('inbox.chooseAsset')}
          required
          allowDeselect={false}
          searchable
          error={draft.problem === 'needsAsset' && needsAsset ? t('inbox.needsAssetHint') : undefined}
        />
        <Select label={t('inbox.category')} data={categoryOptions} value={category} onChange={setCategory} searchable allowDeselect={false} />
        {chosen && needsAmount && (
          <NumberField
            field={amount}
            label={t('inbox.amountIn', { currency: chosen.currency })}
            description={otherCurrency ? t('inbox.amountInHint', { amount: f.money(draft.amount, draft.currency), asset: chosen.name }) : undefined}
            required
          />
        )}
      </div>
      {draft.note && (
        <details style={{ marginTop: 8 }}>
          <summary>
            <Text component="span" size="xs" c="dimmed">
              {t('inbox.original')}
            </Text>
          </summary>
          <Code block className="pp-code" mt={4}>
            {draft.note}
          </Code>
        </details>
      )}
      <ErrorNote error={action.error} />
      <Group mt="sm" gap="xs">
        <Button size="xs" onClick={() => void confirm()} loading={action.busy} disabled={needsAsset}>
          {t('inbox.confirm')}
        </Button>
        <Button size="xs" variant="default" onClick={() => void dismiss()} disabled={action.busy}>
          {t('inbox.dismiss')}
        </Button>
      </Group>
    </article>
  );
}
