import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';

export { describeValidationError, type ValidationRule } from './validation-words';

// validateSchema: false — the params schemas are our own TypeBox definitions, checked against the
// JSON Schema meta-schema by a test (api-framework.test.ts) instead of at run time, where compiling
// the meta-schema cost ~40 ms of the first request.
const ajv = new Ajv({ allErrors: false, strict: false, coerceTypes: false, useDefaults: true, validateSchema: false });
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
 * The `hint` of the schema node an ajv error's `schemaPath` ends at (`#/properties/username/pattern`
 * → the username schema's hint), for describeValidationError.
 */
export function hintsOf(schema: TSchema): (schemaPath: string) => string | undefined {
  return (schemaPath) => {
    let node: unknown = schema;
    for (const step of schemaPath.replace(/^#\/?/, '').split('/').slice(0, -1)) {
      if (!node || typeof node !== 'object') return undefined;
      node = (node as Record<string, unknown>)[step.replace(/~1/g, '/').replace(/~0/g, '~')];
    }
    const hint = (node as { hint?: unknown } | undefined)?.hint;
    return typeof hint === 'string' ? hint : undefined;
  };
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
