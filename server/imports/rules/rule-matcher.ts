import { compileRulePattern } from './linear-regex';
import type { RuleApplication, RuleDoc, RuleSet, RuleSubject } from './rule-types';

/** Text compared by rules: NFKC, lower case, trimmed (so ＳＴＡＲＢＵＣＫＳ matches starbucks). */
export function ruleText(text: string): string {
  return text.normalize('NFKC').toLowerCase().trim();
}

/** One rule, compiled once per import (its regex built once, its text normalised once). */
interface CompiledRule {
  rule: RuleDoc;
  test: (subject: RuleSubject, normalised: { description: string; payee: string }) => boolean;
}

function compile(rule: RuleDoc): CompiledRule {
  const { field, op, value } = rule.match;
  if (field === 'amount') {
    const limit = Number(value);
    const test = op === 'gt' ? (a: number) => a > limit : op === 'lt' ? (a: number) => a < limit : (a: number) => Math.abs(a - limit) < 1e-9;
    return { rule, test: (subject) => test(subject.amount) };
  }
  if (field === 'asset') return { rule, test: (subject) => subject.assetId === value };
  const key = field; // 'description' | 'payee'
  if (op === 'regex') {
    // Linear-time engine, lower-cased text (linear-regex.ts). A stored pattern this runtime cannot
    // compile matches nothing rather than stopping the import.
    let pattern: RegExp | null;
    try {
      pattern = compileRulePattern(String(value));
    } catch {
      pattern = null;
    }
    return { rule, test: (_s, n) => pattern !== null && pattern.test(n[key]) };
  }
  const wanted = ruleText(String(value));
  if (op === 'equals') return { rule, test: (_s, n) => n[key] === wanted };
  return { rule, test: (_s, n) => n[key].includes(wanted) };
}

export interface RuleOutcome {
  set: RuleSet;
  applied: RuleApplication[];
  /** True when a matching rule says "confirm inbox drafts at once". */
  autoConfirm: boolean;
}

/**
 * The rules of one person, ready to run over many subjects. Rules run in the order they were made;
 * every matching rule applies, and where two set the same field the later one wins (a newer, more
 * specific rule overrides an older general one). Tags add up.
 */
export class RuleBook {
  private readonly compiled: CompiledRule[];

  constructor(rules: readonly RuleDoc[]) {
    this.compiled = [...rules].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1)).map(compile);
  }

  get size(): number {
    return this.compiled.length;
  }

  run(subject: RuleSubject): RuleOutcome {
    const outcome: RuleOutcome = { set: {}, applied: [], autoConfirm: false };
    if (this.compiled.length === 0) return outcome;
    const normalised = { description: ruleText(subject.description), payee: ruleText(subject.payee) };
    for (const { rule, test } of this.compiled) {
      if (!test(subject, normalised)) continue;
      const fields: Array<keyof RuleSet> = [];
      if (rule.set.category !== undefined) {
        outcome.set.category = rule.set.category;
        fields.push('category');
      }
      if (rule.set.description !== undefined) {
        outcome.set.description = rule.set.description;
        fields.push('description');
      }
      if (rule.set.tags && rule.set.tags.length > 0) {
        outcome.set.tags = [...new Set([...(outcome.set.tags ?? []), ...rule.set.tags])];
        fields.push('tags');
      }
      if (rule.autoConfirm) outcome.autoConfirm = true;
      // A later rule that sets the same field takes it over: the preview names the rule that won.
      for (const earlier of outcome.applied) earlier.fields = earlier.fields.filter((f) => f === 'tags' || !fields.includes(f));
      outcome.applied = outcome.applied.filter((a) => a.fields.length > 0);
      outcome.applied.push({ ruleId: rule.id, fields });
    }
    return outcome;
  }
}
