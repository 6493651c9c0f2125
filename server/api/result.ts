import { Type, type SchemaOptions, type TObject, type TProperties } from '@sinclair/typebox';

/**
 * The shape of an action's `data` on success, as a TypeBox schema. It types the handler's result
 * (and so the presenters that make it), the UI client's result types and docs/api.md; and, when
 * results are checked (tests and the end-to-end server), every real answer is validated against it.
 *
 * Objects are closed (`additionalProperties: false`): a field the schema does not name — a
 * forgotten internal field, a secret — fails the check instead of reaching a client unseen.
 */
export function Result<T extends TProperties>(properties: T, options: SchemaOptions = {}): TObject<T> {
  return Type.Object(properties, { ...options, additionalProperties: false });
}

/**
 * A named result shape used by several actions (`Asset`, `Record`…). docs/api.md describes it
 * once under "Shapes" and names it wherever it appears.
 */
export function Shape<T extends TProperties>(name: string, properties: T, description?: string): TObject<T> {
  return Type.Object(properties, { title: name, additionalProperties: false, ...(description ? { description } : {}) });
}

/** `{deleted: true}`. */
export const Deleted = Result({ deleted: Type.Literal(true) });
/** An action whose success carries no data (`data: null`). */
export const NoData = Type.Null({ description: 'nothing (`data` is null)' });
