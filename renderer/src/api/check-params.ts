import type { ValidationRule } from './generated/validators';

/**
 * The params check before sending (docs/ui.md, "Error messages"): the action schemas' own validators,
 * generated as Ajv standalone code (scripts/gen-validators.ts), loaded as a separate chunk on first
 * use. A refusal has the server's message, field and rule, so it reads exactly as the server's 400.
 */
type Validators = typeof import('./generated/validators');
let loading: Promise<Validators | null> | null = null;

/** Starts loading the validators chunk (the first call() would otherwise wait for it); null when it cannot load. */
export function preloadValidators(): Promise<Validators | null> {
  loading ??= import('./generated/validators').catch(() => {
    loading = null; // the server checks anyway; try again on the next call
    return null;
  });
  return loading;
}

/** What the server would answer for these params, or null when they pass the action's schema. */
export async function paramsRefusal(action: string, params: unknown): Promise<{ message: string; field: string; rule: ValidationRule } | null> {
  const generated = await preloadValidators();
  const validate = generated?.validators[action];
  // Checked as the server will read them: JSON drops undefined keys and turns NaN into null.
  if (!generated || !validate || validate(JSON.parse(JSON.stringify(params ?? {})))) return null;
  const first = validate.errors?.[0];
  if (!first) return null;
  const hints = generated.hints[action] ?? {};
  const { message, field, rule } = generated.describeValidationError(first, (schemaPath) => hints[schemaPath]);
  return { message, field: field ? `params.${field}` : 'params', rule };
}
