import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { call, type ResultOf } from '../../api/client';
import { NumberField, type NumberFieldState } from '../../components/NumberField';
import { currencyDigits, useFormat } from '../../lib/format';
import { useDebounced } from '../../lib/use-debounced';
import { moneyWithCode } from '../../lib/transfer';

/**
 * The amount received of a transfer across currencies (docs/ui.md, "Transfers across
 * currencies"): the conversion at the user's rate is shown before saving — as the placeholder and
 * as the hint "at 1 USD = 7.10 CNY · left empty, 710.00 CNY is saved" — and is what the form
 * sends when the field is left empty (`receivedAmount`), so nothing is filled in unseen.
 */
export type Conversion = ResultOf<'currency.convert'>;

interface ConversionInput {
  amount: number | null;
  from: string;
  to: string;
  /** The record's date; left out for today (the rate in force now). */
  date?: number;
}

/** currency.convert for what the form shows now (debounced); without an amount, for 1 unit (the rate alone). */
export function useConversion(input: ConversionInput | null): Conversion | null {
  const key = input ? JSON.stringify({ ...input, amount: input.amount && input.amount > 0 ? input.amount : 1 }) : null;
  const debounced = useDebounced(key, 250);
  const [answer, setAnswer] = useState<{ key: string; conversion: Conversion } | null>(null);
  useEffect(() => {
    if (!debounced) return;
    const params = JSON.parse(debounced) as ConversionInput & { amount: number };
    let live = true;
    call('currency.convert', params).then(
      (conversion) => live && setAnswer({ key: debounced, conversion }),
      () => undefined, // the hint is a courtesy: without it the field simply asks for the amount
    );
    return () => {
      live = false;
    };
  }, [debounced]);
  return answer && answer.key === key ? answer.conversion : null;
}

/**
 * What to send as `toAmount`: the typed amount, else the conversion at the rate (asked afresh, so
 * a submit right after typing never uses a suggestion for an older amount); null when neither exists.
 */
export async function receivedAmount(field: NumberFieldState, input: ConversionInput & { amount: number }): Promise<number | null> {
  if (field.value !== null) return field.value;
  try {
    return (await call('currency.convert', input)).amount;
  } catch {
    return null;
  }
}

export function ReceivedAmountField({ field, amount, conversion, error }: { field: NumberFieldState; amount: number | null; conversion: Conversion | null; error?: ReactNode }) {
  const { t } = useTranslation();
  const f = useFormat();
  const to = field.rule.kind === 'money' ? field.rule.currency : '';
  const rate = conversion?.rate;
  const rateText = rate ? f.number(Number(rate.rate), { minimumFractionDigits: 2, maximumFractionDigits: 12 }) : '';
  const suggested = conversion && conversion.amount !== null && amount !== null && amount > 0 ? conversion.amount : null;
  let hint: string | null = null;
  if (conversion && !rate) hint = t('crossCurrency.noRate', { from: conversion.from, to: conversion.to });
  else if (rate && suggested !== null) hint = t('crossCurrency.suggestion', { from: rate.from, to: rate.to, rate: rateText, amount: moneyWithCode(f.locale, suggested, to) });
  else if (rate) hint = t('crossCurrency.rate', { from: rate.from, to: rate.to, rate: rateText });
  const digits = currencyDigits(to);
  return (
    <NumberField
      field={field}
      label={t('records.toAmount', { currency: to })}
      placeholder={suggested !== null ? f.number(suggested, { minimumFractionDigits: digits, maximumFractionDigits: digits }) : undefined}
      description={hint}
      inputWrapperOrder={['label', 'input', 'description', 'error']}
      error={error}
    />
  );
}
