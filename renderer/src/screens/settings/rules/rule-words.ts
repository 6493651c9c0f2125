import { useTranslation } from 'react-i18next';
import type { ResultOf } from '../../../api/client';
import { useFormat } from '../../../lib/format';
import { useAssets } from '../../../lib/ledger';

/** An import rule as rule.query lists it, and a suggested one. */
export type ImportRule = ResultOf<'rule.query'>['list'][number];
export type RuleSuggestion = ResultOf<'rule.query'>['suggestions'][number];
export type RuleMatch = ImportRule['match'];
export type RuleSet = ImportRule['set'];

export const RULE_FIELDS = ['description', 'payee', 'amount', 'asset'] as const;
export type RuleField = (typeof RULE_FIELDS)[number];
export type RuleOp = 'contains' | 'equals' | 'regex' | 'gt' | 'lt';
/** The operators each field takes, the first one the default (the server refuses any other: imports.ruleOpNotForField). */
export const OPS_OF_FIELD: Record<RuleField, readonly [RuleOp, ...RuleOp[]]> = {
  description: ['contains', 'equals', 'regex'],
  payee: ['contains', 'equals', 'regex'],
  amount: ['equals', 'gt', 'lt'],
  asset: ['equals'],
};

/** A rule in words: "Description contains “starbucks” → category Coffee, tags coffee". */
export function useRuleWords() {
  const { t } = useTranslation();
  const f = useFormat();
  const assets = useAssets();
  const separator = t('errors.listSeparator');
  const when = (match: RuleMatch) => {
    const field = match.field;
    const value =
      field === 'asset'
        ? (assets.byId.get(String(match.value))?.name ?? t('rules.unknownAsset'))
        : field === 'amount'
          ? f.number(Number(match.value), { maximumFractionDigits: 8 })
          : `“${String(match.value)}”`;
    const op = field === 'asset' ? 'is' : match.op;
    return t('rules.when', { field: t(`rules.fields.${field}`), op: t(`rules.ops.${op}`), value });
  };
  const then = (set: RuleSet) =>
    [
      set.category ? t('rules.sets.category', { category: set.category }) : '',
      set.tags && set.tags.length > 0 ? t('rules.sets.tags', { tags: set.tags.join(separator) }) : '',
      set.description ? t('rules.sets.description', { description: set.description }) : '',
    ]
      .filter(Boolean)
      .join(separator);
  return { when, then, text: (rule: { match: RuleMatch; set: RuleSet }) => `${when(rule.match)} → ${then(rule.set)}` };
}
