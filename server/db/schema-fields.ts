import { Type, type TUnsafe } from '@sinclair/typebox';
import { ID_MAX_LENGTH } from '../lib/ids';

/**
 * Building blocks of the collections' schemas, as TypeBox types for `defineCollection`: each gives
 * the JSON an RxDB index needs (a maxLength on strings; minimum, maximum and multipleOf on numbers)
 * and the TypeScript type of the field, so every domain's shapes agree. Changing what one returns
 * changes the schema hash of every collection that uses it: bump their versions then
 * (server/schema-hashes.test.ts says which).
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
