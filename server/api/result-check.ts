import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';

/** Checks real answers against their actions' result schemas (server/api/result.ts). */
// A checker of its own: no defaults filled in, no coercion, every problem reported (the first is
// what an answer names; the rest help whoever reads the log).
const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false, validateSchema: false });
addFormats(ajv);
const compiled = new WeakMap<TSchema, ValidateFunction>();

/**
 * What is wrong with `data` as an answer of a result schema, as readable lines
 * (`/list/0/balance must be integer`); empty when it matches. `data` is checked as a client
 * receives it: after JSON (undefined fields dropped, `undefined` as a whole answered as null).
 */
export function resultProblems(schema: TSchema, data: unknown): string[] {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  const wire: unknown = data === undefined ? null : JSON.parse(JSON.stringify(data));
  if (validate(wire)) return [];
  return (validate.errors ?? []).slice(0, 5).map((e) => {
    const where = e.instancePath || '(the answer)';
    const extra = e.keyword === 'additionalProperties' ? ` "${String((e.params as { additionalProperty?: unknown }).additionalProperty)}"` : '';
    return `${where} ${String(e.message)}${extra}`;
  });
}

/** Results are checked in tests and on the end-to-end server (PENNYPOST_CHECK_RESULTS=1), not for users. */
export function resultsChecked(): boolean {
  return process.env.PENNYPOST_CHECK_RESULTS === '1';
}
