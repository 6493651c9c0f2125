import type { ErrorObject } from 'ajv';

// The words of a params validation failure. Pure (only a type import): the server's /api router
// uses it, and scripts/gen-validators.ts compiles it into the UI's generated validators, so a
// refusal before sending has exactly the server's message, field and rule.

/**
 * The rule a param broke, for clients to say it in their own words (docs/api.md, "Validation
 * rules"): the JSON Schema keyword and its limit, format or allowed values. A pattern is never
 * given as its regular expression: the schema's `hint` names it ('username', 'currencyCode', …).
 */
export interface ValidationRule {
  keyword: string;
  limit?: number;
  format?: string;
  allowed?: unknown[];
  type?: string;
  hint?: string;
}

/** The rule of an ajv error (ajv's `params` in the shape above). */
export function validationRule(error: ErrorObject, hintAt: (schemaPath: string) => string | undefined): ValidationRule {
  const params = error.params as Record<string, unknown>;
  const rule: ValidationRule = { keyword: error.keyword };
  if (typeof params.limit === 'number') rule.limit = params.limit;
  if (typeof params.format === 'string') rule.format = params.format;
  if (Array.isArray(params.allowedValues)) rule.allowed = params.allowedValues as unknown[];
  if (error.keyword === 'const') rule.allowed = [params.allowedValue];
  if (typeof params.type === 'string') rule.type = params.type;
  if (error.keyword === 'multipleOf' && typeof params.multipleOf === 'number') rule.limit = params.multipleOf;
  if (error.keyword === 'pattern') {
    rule.hint = hintAt(error.schemaPath) ?? 'text';
  }
  return rule;
}

/**
 * "params.amount must be number" — one plain sentence for the envelope message (which names the
 * field as sent), the field in domain terms ('amount', 'items[2].amount'; '' for params itself),
 * which the router shows under its wire name like any other error's field, and the broken rule.
 */
export function describeValidationError(
  error: ErrorObject,
  hintAt: (schemaPath: string) => string | undefined = () => undefined,
): { message: string; field: string; rule: ValidationRule } {
  const path = error.instancePath
    .replace(/\/(\d+)/g, '[$1]')
    .replace(/\//g, '.')
    .replace(/~1/g, '/')
    .replace(/~0/g, '~')
    .replace(/^\./, '');
  const join = (child: string) => (path ? `${path}.${child}` : child);
  const wire = (field: string) => (field ? `params.${field}` : 'params');
  const rule = validationRule(error, hintAt);
  switch (error.keyword) {
    case 'additionalProperties': {
      const extra = join((error.params as { additionalProperty: string }).additionalProperty);
      return { field: extra, rule, message: `unknown parameter ${wire(extra)}` };
    }
    case 'required': {
      const missing = join((error.params as { missingProperty: string }).missingProperty);
      return { field: missing, rule, message: `${wire(missing)} is required` };
    }
    case 'enum': {
      const allowed = (error.params as { allowedValues: unknown[] }).allowedValues;
      return { field: path, rule, message: `${wire(path)} must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}` };
    }
    case 'anyOf':
      return { field: path, rule, message: `${wire(path)} has an invalid shape` };
    default:
      return { field: path, rule, message: `${wire(path)} ${error.message ?? 'is invalid'}` };
  }
}
