import type { ActionDefinition } from '../../../server/api/action';
import type { ActionDeclarations } from '../../../server/domains';
import type { ActionName } from '../api/client';

/**
 * The text limits of the forms, taken from the actions' params (docs/ui.md, "Text limits"). The
 * server declares them with `Text(n)` (server/api/params.ts), which keeps `n` in the schema's
 * type; `MaxLength` reads it back, and each number below must equal it or this file does not
 * compile — so a limit changed on the server cannot be forgotten here.
 */
type ParamsSchema<N extends ActionName> = ActionDeclarations[N] extends ActionDefinition<infer S, infer _A, infer _R> ? S : never;
type Unwrap<T> = T extends { items: infer I } ? I : T;
/** The limit both actions agree on (never when they differ). */
type Agree<A, B> = [A] extends [B] ? ([B] extends [A] ? A : never) : never;
type MaxLength<N extends ActionName, K extends string> =
  ParamsSchema<N> extends { properties: infer P }
    ? K extends keyof P
      ? Unwrap<P[K]> extends { maxLength: infer M extends number }
        ? number extends M
          ? never
          : M
        : never
      : never
    : never;

export const TEXT_LIMITS = {
  assetName: 100,
  assetDescription: 1000,
  recordDescription: 1000,
  tag: 32,
  goalTitle: 100,
  goalDescription: 1000,
  categoryName: 64,
} as const satisfies {
  assetName: Agree<MaxLength<'asset.create', 'name'>, MaxLength<'asset.update', 'name'>>;
  assetDescription: Agree<MaxLength<'asset.create', 'description'>, MaxLength<'asset.update', 'description'>>;
  recordDescription: Agree<MaxLength<'accounting.create', 'description'>, MaxLength<'accounting.update', 'description'>>;
  tag: MaxLength<'accounting.create', 'tags'>;
  goalTitle: MaxLength<'savings.createGoal', 'title'>;
  goalDescription: MaxLength<'savings.createGoal', 'description'>;
  categoryName: Agree<MaxLength<'category.create', 'name'>, MaxLength<'category.update', 'name'>>;
};

/** Characters as the server counts them (code points: an emoji is one). */
export function textLength(text: string): number {
  return Array.from(text).length;
}
