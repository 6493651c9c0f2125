import type { RuleOutcome } from './rules/rule-matcher';
import type { RuleApplication } from './rules/rule-types';

/** A category as imports look it up: its type and its name in NFKC, trimmed, lower case. */
import { categoryKey } from '../lib/fold-text';

export { categoryKey };

/** The account's categories by categoryKey → their stored spelling. */
export function categoryNames(categories: ReadonlyArray<{ type: string; name: string }>): Map<string, string> {
  return new Map(categories.map((c) => [categoryKey(c.type, c.name), c.name]));
}

/**
 * The category the rules set for a record of `type`, when one of that name exists for that type.
 * A rule's category of the other type (an expense category on a refund) is not applied, and so is
 * taken out of the rules the preview and the inbox name.
 */
export function ruledCategory(outcome: RuleOutcome, type: string, names: ReadonlyMap<string, string>): { category?: string; applied: RuleApplication[] } {
  const wanted = outcome.set.category;
  if (wanted === undefined) return { applied: outcome.applied };
  const category = names.get(categoryKey(type, wanted));
  if (category) return { category, applied: outcome.applied };
  return { applied: outcome.applied.map((a) => ({ ...a, fields: a.fields.filter((f) => f !== 'category') })).filter((a) => a.fields.length > 0) };
}
