import { compileRulePattern } from './linear-regex';
import type { RuleApplication, RuleDoc, RuleSet, RuleSubject } from './rule-types';
import { nameKey } from '../../lib/fold-text';

/**
 * Longest text a rule looks at (a record's description is at most this long). An import refuses a
 * longer line before any rule runs (pipeline/plan.ts); here longer text is cut, so no caller can
 * make one rule read more: the linear-time regex engine takes up to ~50 µs per character.
 */
export const RULE_TEXT_MAX = 1000;

/** Text compared by rules: NFKC, lower case, trimmed (so ＳＴＡＲＢＵＣＫＳ matches starbucks), at most RULE_TEXT_MAX characters. */
export function ruleText(text: string): string {
  // Cut before normalising too: NFKC of a long text is work for nothing (4 is the most one character expands to, ﷺ aside).
  const head = text.length > RULE_TEXT_MAX * 4 ? text.slice(0, RULE_TEXT_MAX * 4) : text;
  const normalised = nameKey(head);
  return normalised.length > RULE_TEXT_MAX ? normalised.slice(0, RULE_TEXT_MAX) : normalised;
}

/** One rule, compiled once per import (its regex built once, its text normalised once). */
interface CompiledRule {
  rule: RuleDoc;
  /** A regular expression: the kind of rule whose time is counted one by one. */
  slow: boolean;
  test: (subject: RuleSubject, normalised: { description: string; payee: string }) => boolean;
}

function compile(rule: RuleDoc): CompiledRule {
  const { field, op, value } = rule.match;
  if (field === 'amount') {
    const limit = Number(value);
    const test = op === 'gt' ? (a: number) => a > limit : op === 'lt' ? (a: number) => a < limit : (a: number) => Math.abs(a - limit) < 1e-9;
    return { rule, slow: false, test: (subject) => test(subject.amount) };
  }
  if (field === 'asset') return { rule, slow: false, test: (subject) => subject.assetId === value };
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
    return { rule, slow: true, test: (_s, n) => pattern !== null && pattern.test(n[key]) };
  }
  const wanted = ruleText(String(value));
  if (op === 'equals') return { rule, slow: false, test: (_s, n) => n[key] === wanted };
  return { rule, slow: false, test: (_s, n) => n[key].includes(wanted) };
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
    for (const { rule, test } of this.compiled) if (test(subject, normalised)) applyRule(outcome, rule);
    return outcome;
  }

  /**
   * Runs the rules over the lines of one import with a time budget (docs/import.md, "Budgets"):
   * the server's thread is given back every `sliceMs` (between two rules when a line's rules take
   * long), and once the rules have taken `budgetMs` in all the import is refused (RulesTooSlow).
   */
  runner(options: { budgetMs: number; sliceMs: number }): RuleRun {
    return new RuleRun(this.compiled, options);
  }
}

/** The rules of one import took longer than its budget. */
export class RulesTooSlow extends Error {
  constructor(
    readonly budgetMs: number,
    /** The regex rule that took the most of it, when one did. */
    readonly slowest: { ruleId: string; ms: number } | undefined,
  ) {
    super(`the rules took more than ${budgetMs} ms`);
    this.name = 'RulesTooSlow';
  }
}

const giveBack = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One import's run of the rules (RuleBook.runner). */
export class RuleRun {
  private spentMs = 0;
  private sliceStart = performance.now();
  private readonly regexMs = new Map<string, number>();
  /** Outcomes by subject: a bill repeats the same payee and text many times, and the linear-time engine is slow (~0.5 µs per character). */
  private readonly seen = new Map<string, RuleOutcome>();

  constructor(
    private readonly compiled: readonly CompiledRule[],
    private readonly options: { budgetMs: number; sliceMs: number },
  ) {}

  /** Gives the server's thread back when this slice is used up (call between lines). */
  async pause(): Promise<void> {
    if (performance.now() - this.sliceStart < this.options.sliceMs) return;
    await giveBack();
    this.sliceStart = performance.now();
  }

  /** The outcome for one subject (a copy: the caller may change it). */
  async run(subject: RuleSubject): Promise<RuleOutcome> {
    if (this.compiled.length === 0) return { set: {}, applied: [], autoConfirm: false };
    const key = `${subject.description}\u0000${subject.payee}\u0000${subject.amount}\u0000${subject.assetId}`;
    let outcome = this.seen.get(key);
    if (!outcome) {
      outcome = await this.evaluate(subject);
      this.seen.set(key, outcome);
    }
    return {
      set: { ...outcome.set, ...(outcome.set.tags ? { tags: [...outcome.set.tags] } : {}) },
      applied: outcome.applied.map((a) => ({ ruleId: a.ruleId, fields: [...a.fields] })),
      autoConfirm: outcome.autoConfirm,
    };
  }

  private async evaluate(subject: RuleSubject): Promise<RuleOutcome> {
    const outcome: RuleOutcome = { set: {}, applied: [], autoConfirm: false };
    let started = performance.now();
    const normalised = { description: ruleText(subject.description), payee: ruleText(subject.payee) };
    for (const { rule, test, slow } of this.compiled) {
      let hit: boolean;
      if (slow) {
        const before = performance.now();
        if (before - this.sliceStart >= this.options.sliceMs) {
          this.spend(before - started);
          await giveBack();
          this.sliceStart = started = performance.now();
        }
        const at = performance.now();
        hit = test(subject, normalised);
        const ms = performance.now() - at;
        this.regexMs.set(rule.id, (this.regexMs.get(rule.id) ?? 0) + ms);
      } else hit = test(subject, normalised);
      if (hit) applyRule(outcome, rule);
    }
    this.spend(performance.now() - started);
    return outcome;
  }

  private spend(ms: number): void {
    this.spentMs += ms;
    if (this.spentMs <= this.options.budgetMs) return;
    let slowest: { ruleId: string; ms: number } | undefined;
    for (const [ruleId, ms] of this.regexMs) if (!slowest || ms > slowest.ms) slowest = { ruleId, ms: Math.round(ms) };
    throw new RulesTooSlow(this.options.budgetMs, slowest);
  }
}

/** Applies a matching rule: a later rule that sets the same field takes it over, tags add up. */
function applyRule(outcome: RuleOutcome, rule: RuleDoc): void {
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
  // The preview names the rule that won each field.
  for (const earlier of outcome.applied) earlier.fields = earlier.fields.filter((f) => f === 'tags' || !fields.includes(f));
  outcome.applied = outcome.applied.filter((a) => a.fields.length > 0);
  outcome.applied.push({ ruleId: rule.id, fields });
}
