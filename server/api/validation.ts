import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';

// validateSchema: false — the params schemas are our own TypeBox definitions, checked against the
// JSON Schema meta-schema by a test (api-framework.test.ts) instead of at run time, where compiling
// the meta-schema cost ~40 ms of the first request.
// verbose: an error carries its schema, whose `hint` names a pattern in words (describeValidationError).
const ajv = new Ajv({ allErrors: false, strict: false, coerceTypes: false, useDefaults: true, validateSchema: false, verbose: true });
addFormats(ajv);

const compiled = new WeakMap<TSchema, ValidateFunction>();

/** Every problem the JSON Schema meta-schema finds in `schema` (empty when it is valid). */
export function schemaProblems(schema: TSchema): string[] {
  const checker = new Ajv({ strict: false });
  addFormats(checker);
  return checker.validateSchema(schema) ? [] : (checker.errors ?? []).map((e) => `${e.instancePath} ${String(e.message)}`);
}

export function compileParams(schema: TSchema): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
    compiled.set(schema, fn);
  }
  return fn;
}

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
export function validationRule(error: ErrorObject): ValidationRule {
  const params = error.params as Record<string, unknown>;
  const rule: ValidationRule = { keyword: error.keyword };
  if (typeof params.limit === 'number') rule.limit = params.limit;
  if (typeof params.format === 'string') rule.format = params.format;
  if (Array.isArray(params.allowedValues)) rule.allowed = params.allowedValues as unknown[];
  if (error.keyword === 'const') rule.allowed = [params.allowedValue];
  if (typeof params.type === 'string') rule.type = params.type;
  if (error.keyword === 'multipleOf' && typeof params.multipleOf === 'number') rule.limit = params.multipleOf;
  if (error.keyword === 'pattern') {
    const hint = (error.parentSchema as { hint?: unknown } | undefined)?.hint;
    rule.hint = typeof hint === 'string' ? hint : 'text';
  }
  return rule;
}

/**
 * "params.amount must be number" — one plain sentence for the envelope message (which names the
 * field as sent), the field in domain terms ('amount', 'items[2].amount'; '' for params itself),
 * which the router shows under its wire name like any other error's field, and the broken rule.
 */
export function describeValidationError(error: ErrorObject): { message: string; field: string; rule: ValidationRule } {
  const path = error.instancePath
    .replace(/\/(\d+)/g, '[$1]')
    .replace(/\//g, '.')
    .replace(/~1/g, '/')
    .replace(/~0/g, '~')
    .replace(/^\./, '');
  const join = (child: string) => (path ? `${path}.${child}` : child);
  const wire = (field: string) => (field ? `params.${field}` : 'params');
  const rule = validationRule(error);
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

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
export const MAX_JSON_DEPTH = 32;

/**
 * Refuses prototype-pollution keys anywhere in a parsed body and nesting deeper than
 * MAX_JSON_DEPTH. Returns a message, or null when the value is acceptable.
 */
export function checkJsonShape(value: unknown, depth = 0): string | null {
  if (typeof value !== 'object' || value === null) return null;
  if (depth > MAX_JSON_DEPTH) return `request nests deeper than ${MAX_JSON_DEPTH} levels`;
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = checkJsonShape(item, depth + 1);
      if (problem) return problem;
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key)) return `the key "${key}" is not allowed`;
    const problem = checkJsonShape((value as Record<string, unknown>)[key], depth + 1);
    if (problem) return problem;
  }
  return null;
}
