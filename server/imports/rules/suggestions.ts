import type { AppContext } from '../../app-context';
import { ruleText } from './rule-matcher';
import type { RuleService } from './rule-service';
import type { RuleMatch, RuleSet } from './rule-types';

/** Payees remembered per account (the least recent are forgotten first). */
const MAX_TRACKED = 200;
/** Re-categorisations of one payee to one category before a rule is suggested. */
export const SUGGEST_AFTER = 2;

interface Tracked {
  /** The payee as the person wrote it (first part of the description). */
  text: string;
  type: 'income' | 'expense';
  to: string;
  count: number;
  at: number;
}

interface SuggestionState {
  tracked: Record<string, Tracked>;
  /** Keys whose suggestion the person dismissed. */
  dismissed: string[];
}

export interface RuleSuggestion {
  /** Pass to rule.dismissSuggestion to stop showing it. */
  key: string;
  match: RuleMatch;
  set: RuleSet;
  /** How many times the person moved this payee's records to this category. */
  count: number;
}

/**
 * The payee part of a record's description: imports write "payee — what", people write anything;
 * the text before " — " (or the whole, up to 60 characters).
 */
export function payeeOf(description: string): string {
  const cut = description.indexOf(' — ');
  return Array.from((cut === -1 ? description : description.slice(0, cut)).trim())
    .slice(0, 60)
    .join('');
}

const keyOf = (userId: string) => `imports:recat:${userId}`;

/**
 * "You moved STARBUCKS to Coffee twice: make it a rule?" Every time a record's category is changed
 * (here, by a bulk edit, or on another device) the payee and the new category are counted; after
 * SUGGEST_AFTER changes to the same category, rule.query lists a suggestion, unless a rule already
 * sets that category for that payee or the person dismissed it.
 */
export class RuleSuggestions {
  private readonly states = new Map<string, Promise<SuggestionState>>();
  private queue = Promise.resolve();
  private subscription?: { unsubscribe(): void };

  constructor(
    private readonly app: AppContext,
    private readonly rules: RuleService,
  ) {}

  start(): void {
    this.subscription = this.app.services.ledger.watchCategoryChanges((change) => {
      const text = payeeOf(change.description);
      if (!text || !change.to) return;
      this.queue = this.queue
        .then(() => this.count(change.userId, text, change.type, change.to))
        .catch((error: unknown) => {
          this.app.log.warn('imports: counting a re-categorisation failed', { error: error instanceof Error ? error.message : String(error) });
        });
    });
  }

  stop(): Promise<void> {
    this.subscription?.unsubscribe();
    return this.queue;
  }

  /** Waits until every change seen so far is counted (tests). */
  settled(): Promise<void> {
    return this.queue;
  }

  /**
   * Records the person moved to another category while importing them (a category chosen in the
   * preview): counted like re-categorised records, by payee.
   */
  async noteMoves(userId: string, moves: ReadonlyArray<{ description: string; type: 'income' | 'expense'; to: string }>): Promise<void> {
    for (const move of moves) {
      const text = payeeOf(move.description);
      if (!text || !move.to) continue;
      await this.enqueue(() => this.count(userId, text, move.type, move.to));
    }
  }

  async list(userId: string): Promise<RuleSuggestion[]> {
    const state = await this.state(userId);
    const book = await this.rules.book(userId);
    const out: RuleSuggestion[] = [];
    for (const [key, tracked] of Object.entries(state.tracked)) {
      if (tracked.count < SUGGEST_AFTER || state.dismissed.includes(key)) continue;
      const already = book.run({ description: tracked.text, payee: tracked.text, amount: 0, assetId: '' });
      if (already.set.category === tracked.to) continue;
      out.push({ key, match: { field: 'description', op: 'contains', value: tracked.text }, set: { category: tracked.to }, count: tracked.count });
    }
    return out.sort((a, b) => b.count - a.count);
  }

  async dismiss(userId: string, key: string): Promise<void> {
    await this.enqueue(async () => {
      const state = await this.state(userId);
      if (!state.dismissed.includes(key)) state.dismissed = [...state.dismissed, key].slice(-MAX_TRACKED);
      await this.app.db.local.put(keyOf(userId), state);
    });
  }

  async forgetUser(userId: string): Promise<void> {
    await this.enqueue(async () => {
      this.states.delete(userId);
      await this.app.db.local.del(keyOf(userId));
    });
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private state(userId: string): Promise<SuggestionState> {
    let state = this.states.get(userId);
    if (!state) {
      state = this.app.db.local.get<SuggestionState>(keyOf(userId)).then((stored) => stored ?? { tracked: {}, dismissed: [] });
      this.states.set(userId, state);
    }
    return state;
  }

  private async count(userId: string, text: string, type: 'income' | 'expense', to: string): Promise<void> {
    const state = await this.state(userId);
    // '#' keeps a payee named like an Object property (__proto__, constructor) an ordinary key.
    const key = `#${ruleText(text)}`;
    const current = Object.hasOwn(state.tracked, key) ? state.tracked[key] : undefined;
    const now = this.app.clock.now();
    state.tracked[key] = current && current.to === to && current.type === type ? { ...current, count: current.count + 1, at: now } : { text, type, to, count: 1, at: now };
    if (Object.keys(state.tracked).length > MAX_TRACKED) {
      state.tracked = Object.fromEntries(
        Object.entries(state.tracked)
          .sort(([, a], [, b]) => b.at - a.at)
          .slice(0, MAX_TRACKED),
      );
    }
    await this.app.db.local.put(keyOf(userId), state);
  }
}
