import type { AppContext } from '../../app-context';
import { sourceCategoryKey } from '../source-categories';

/** Source categories remembered per account (the oldest are forgotten first). */
const MAX_LEARNED = 500;

const keyOf = (userId: string) => `imports:sourceCategories:${userId}`;

interface Learned {
  /** `${type}:${sourceCategoryKey}` → the category the person chose, and when. */
  [key: string]: { category: string; at: number };
}

/**
 * What the person taught the import about the sources' categories (docs/import.md, "Category"):
 * when they move the lines of one source category (交易分类 餐饮美食) to one category of theirs in
 * a preview, the next import files that source category there. In the local store, per account,
 * like rules and saved CSV mappings.
 */
export class LearnedCategories {
  private queue = Promise.resolve();

  constructor(private readonly app: AppContext) {}

  /** `${type}:${sourceCategoryKey}` → category name. */
  async of(userId: string): Promise<Map<string, string>> {
    const stored = (await this.app.db.local.get<Learned>(keyOf(userId))) ?? {};
    return new Map(Object.entries(stored).map(([key, value]) => [key, value.category]));
  }

  /** Remembers that lines of `source` (of `type`) go to `category`. */
  learn(userId: string, choices: ReadonlyArray<{ type: 'income' | 'expense'; source: string; category: string }>): Promise<void> {
    if (choices.length === 0) return Promise.resolve();
    const run = this.queue.then(async () => {
      const stored = (await this.app.db.local.get<Learned>(keyOf(userId))) ?? {};
      const now = this.app.clock.now();
      for (const choice of choices) stored[`${choice.type}:${sourceCategoryKey(choice.source)}`] = { category: choice.category, at: now };
      const kept = Object.entries(stored)
        .sort(([, a], [, b]) => b.at - a.at)
        .slice(0, MAX_LEARNED);
      await this.app.db.local.put(keyOf(userId), Object.fromEntries(kept));
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  async forgetUser(userId: string): Promise<void> {
    await this.queue;
    await this.app.db.local.del(keyOf(userId));
  }
}
