/**
 * The languages PennyPost speaks (the UI's two, docs/ui.md "Language and locale"). An account's
 * language is chosen at sign-up; it decides the names of the default categories and the base
 * currency before the account has one of its own. Nothing else on the server is translated.
 */
export const LANGUAGES = ['en', 'zh-CN'] as const;
export type Language = (typeof LANGUAGES)[number];

/** The language of an account that never chose one (every account from before languages). */
export const DEFAULT_LANGUAGE: Language = 'en';

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

/** The base currency of an account in `language` until it sets one or creates its first asset. */
export function languageCurrency(language: Language): string {
  return language === 'zh-CN' ? 'CNY' : 'USD';
}
