import { Type, type TUnsafe } from '@sinclair/typebox';
import { ID_MAX_LENGTH } from '../lib/ids';

/**
 * Building blocks of the collections' JSON schemas. RxDB indexes need a maxLength on strings and
 * minimum/maximum/multipleOf on numbers; every domain's schema uses these so the shapes agree.
 * (Changing what one returns changes the schema hash of every collection: bump versions then.)
 */
export const str = (maxLength: number) => ({ type: 'string', maxLength }) as const;
export const int = (minimum: number, maximum: number) => ({ type: 'integer', minimum, maximum, multipleOf: 1 }) as const;
/** A time in ms since the epoch. */
export const ms = int(0, 8.64e15);
/** A document id (server/lib/ids.ts). */
export const idField = str(ID_MAX_LENGTH);
export const enumOf = (values: readonly string[], maxLength = 20) => ({ type: 'string', enum: [...values], maxLength }) as const;

/**
 * The same building blocks as TypeBox types, for `defineCollection`: each gives exactly the JSON
 * above (so a schema rewritten with them keeps its hash) and the TypeScript type of the field.
 */
export const Str = (maxLength: number) => Type.String({ maxLength });
export const Int = (minimum: number, maximum: number) => Type.Integer({ minimum, maximum, multipleOf: 1 });
/** A time in ms since the epoch. */
export const Ms = () => Int(0, 8.64e15);
/** A document id (server/lib/ids.ts). */
export const IdField = () => Str(ID_MAX_LENGTH);
export const Bool = () => Type.Boolean();
/** One of `values`, stored as a string (indexable: it has a maxLength). */
export const EnumOf = <V extends string>(values: readonly V[], maxLength = 20): TUnsafe<V> => Type.Unsafe<V>({ type: 'string', enum: [...values], maxLength });
