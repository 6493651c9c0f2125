import type { Language } from '../lib/languages';

export type CategoryType = 'income' | 'expense';

/** One category of the default set, with its name in every language. */
export interface DefaultCategory {
  /** Stable key, stored on the category (`defaultKey`) so its name can follow a language switch. */
  key: string;
  icon: string;
  names: Record<Language, string>;
  /** Seeded only for accounts in this language (a category the other language's set has no word for). */
  only?: Language;
}

/**
 * The categories every account starts with, in the order of the pickers. English accounts get
 * the set PennyPost always had; Chinese accounts get the same categories under their Chinese
 * names plus three that Chinese bookkeeping habitually separates (通讯, 兼职, and utilities as 水电燃气).
 * People can rename or delete any of them.
 */
export const DEFAULT_CATEGORY_SET: Record<CategoryType, readonly DefaultCategory[]> = {
  expense: [
    { key: 'food', icon: 'utensils', names: { en: 'Food', 'zh-CN': '餐饮' } },
    { key: 'transport', icon: 'bus', names: { en: 'Transport', 'zh-CN': '交通' } },
    { key: 'shopping', icon: 'bag', names: { en: 'Shopping', 'zh-CN': '购物' } },
    { key: 'housing', icon: 'home', names: { en: 'Housing', 'zh-CN': '居住' } },
    { key: 'utilities', icon: 'bolt', names: { en: 'Utilities', 'zh-CN': '水电燃气' } },
    { key: 'phone', icon: 'phone', names: { en: 'Phone & internet', 'zh-CN': '通讯' }, only: 'zh-CN' },
    { key: 'health', icon: 'heart', names: { en: 'Health', 'zh-CN': '医疗' } },
    { key: 'entertainment', icon: 'film', names: { en: 'Entertainment', 'zh-CN': '娱乐' } },
    { key: 'education', icon: 'book', names: { en: 'Education', 'zh-CN': '教育' } },
    { key: 'travel', icon: 'plane', names: { en: 'Travel', 'zh-CN': '旅行' } },
    { key: 'gifts', icon: 'gift', names: { en: 'Gifts', 'zh-CN': '人情' } },
    { key: 'other', icon: 'dots', names: { en: 'Other', 'zh-CN': '其他' } },
  ],
  income: [
    { key: 'salary', icon: 'briefcase', names: { en: 'Salary', 'zh-CN': '工资' } },
    { key: 'bonus', icon: 'star', names: { en: 'Bonus', 'zh-CN': '奖金' } },
    { key: 'investment', icon: 'chart', names: { en: 'Investment', 'zh-CN': '理财收益' } },
    { key: 'sidejob', icon: 'tool', names: { en: 'Side job', 'zh-CN': '兼职' }, only: 'zh-CN' },
    { key: 'gift', icon: 'gift', names: { en: 'Gift', 'zh-CN': '礼金' } },
    { key: 'refund', icon: 'undo', names: { en: 'Refund', 'zh-CN': '退款' } },
    { key: 'other', icon: 'dots', names: { en: 'Other', 'zh-CN': '其他' } },
  ],
};

/** The default set of one language, in picker order. */
export function defaultCategories(language: Language, type: CategoryType): DefaultCategory[] {
  return DEFAULT_CATEGORY_SET[type].filter((c) => !c.only || c.only === language);
}

export function defaultCategory(type: CategoryType, key: string): DefaultCategory | undefined {
  return DEFAULT_CATEGORY_SET[type].find((c) => c.key === key);
}

/**
 * The default key of a category from before default keys were stored: its name is one of
 * today's English defaults of its type (the only set there was), else ''.
 */
export function legacyDefaultKey(type: CategoryType, name: string): string {
  return DEFAULT_CATEGORY_SET[type].find((c) => !c.only && c.names.en === name)?.key ?? '';
}

/**
 * A default category is still untouched while its name is the default name of its key in some
 * language: renaming it by hand (or on another device, by sync) makes it the person's own.
 */
export function isUntouchedDefault(category: { type: CategoryType; defaultKey?: string; name: string }): boolean {
  const found = category.defaultKey ? defaultCategory(category.type, category.defaultKey) : undefined;
  return found !== undefined && Object.values(found.names).includes(category.name);
}
