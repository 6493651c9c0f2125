/**
 * Import rules (docs/import.md "Rules"): "when the description contains STARBUCKS, set the category
 * to Coffee". They run on every statement import and on every inbox draft.
 */

export const RULE_FIELDS = ['description', 'payee', 'amount', 'asset'] as const;
export type RuleField = (typeof RULE_FIELDS)[number];
export const RULE_OPS = ['contains', 'equals', 'regex', 'gt', 'lt'] as const;
export type RuleOp = (typeof RULE_OPS)[number];

/** Which operators each field takes. */
export const OPS_OF_FIELD: Record<RuleField, readonly RuleOp[]> = {
  description: ['contains', 'equals', 'regex'],
  payee: ['contains', 'equals', 'regex'],
  amount: ['equals', 'gt', 'lt'],
  asset: ['equals'],
};

export interface RuleMatch {
  field: RuleField;
  op: RuleOp;
  /** Text for description/payee, an asset id for asset, a number in major units for amount. */
  value: string | number;
}

export interface RuleSet {
  /** A category name (of the record's type: an expense category for expenses, an income one for income). */
  category?: string;
  /** Tags added to the record's own (never removed). */
  tags?: string[];
  /** Replaces the description. */
  description?: string;
}

export interface RuleDoc {
  id: string;
  userId: string;
  match: RuleMatch;
  set: RuleSet;
  /** Inbox drafts this rule matches are recorded at once (when their asset is known). */
  autoConfirm: boolean;
  createdAt: number;
  updatedAt: number;
}

/** What a rule is matched against: an import line or an inbox draft, before it is written. */
export interface RuleSubject {
  description: string;
  payee: string;
  /** Major units. */
  amount: number;
  assetId: string;
}

/** Which rule set which field of one record (the preview and the inbox show it). */
export interface RuleApplication {
  ruleId: string;
  fields: Array<keyof RuleSet>;
}
