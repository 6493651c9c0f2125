import { LANGUAGES } from '../lib/languages';
import { Type, type StringOptions, type TString } from '@sinclair/typebox';

/**
 * The params every domain's actions share, written once. Each takes the description docs/api.md
 * shows for it; the bounds are the same everywhere (a time is ms since the epoch, a page starts
 * at 1, an amount is a plain JSON number in major units that the domain turns into minor units).
 */

/** A document id sent back by the caller (the ids PennyPost makes are ≤ 40 characters). */
export const Id = (description = '', maxLength = 64) => Type.String({ minLength: 1, maxLength, description });

/** A time in ms since the epoch. */
export const Ms = (description: string) => Type.Integer({ minimum: 0, maximum: 8.64e15, description });

/** An amount in major units (12.34); the domain checks its decimals against the currency. */
export const Money = (description: string) => Type.Number({ description });

/** Page number, from 1. */
export const Page = (description = 'Page number, from 1.') => Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description });

/** Items per page. */
export const PageSize = (max: number, fallback: number, description = `Items per page (max ${max}).`) => Type.Integer({ minimum: 1, maximum: max, default: fallback, description });

/** An ISO 4217 currency code. */
export const Currency = (description = 'ISO 4217 code, e.g. USD, CNY, JPY.') => Type.String({ pattern: '^[A-Z]{3}$', hint: 'currencyCode', description });

/** An IANA time zone name. */
export const TimeZone = (description = "IANA time zone for grouping (default: this computer's).") => Type.String({ minLength: 1, maxLength: 64, description });

// ---- added for the savings domain
/** One of a list of strings (validation says "must be one of …", docs/api.md lists the values). */
export const OneOf = <T extends string>(values: readonly T[], options: { description?: string; default?: NoInfer<T> } = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });

/** The language of a new account (server/lib/languages.ts): its default categories' names and first base currency. */
export const LanguageParam = (
  description = 'The UI language the account is created in: names its default categories and, until it has one, its base currency (CNY for zh-CN). Default en.',
) => OneOf(LANGUAGES, { description });
/**
 * Text of at most `maxLength` characters. The limit stays in the schema's type as a literal
 * (`TString & {maxLength: 100}`); the UI takes its limits from the generated param limits
 * (scripts/gen-validators.ts) instead of a copy that could drift.
 */
export const Text = <N extends number>(maxLength: N, options: Omit<StringOptions, 'maxLength'> = {}) =>
  Type.String({ ...options, maxLength }) as TString & { readonly maxLength: N };
