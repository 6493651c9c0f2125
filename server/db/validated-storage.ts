import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { META_INSTANCE_SCHEMA_TITLE, wrappedValidateStorageFactory, type RxValidationError } from 'rxdb';

/**
 * RxDB's document validation (the same wrapper as rxdb/plugins/validate-ajv) with its own ajv
 * instance that skips checking each collection schema against the JSON Schema meta-schema: our
 * schemas are fixed at build time and checked by the collections' tests, while compiling the
 * meta-schema cost ~40 ms of every start. Strict mode still refuses unknown keywords.
 */
const ajv = new Ajv({ strict: true, validateSchema: false });
for (const keyword of ['version', 'keyCompression', 'primaryKey', 'indexes', 'encrypted', 'final', 'sharding', 'internalIndexes', 'attachments', 'ref', 'crdt']) {
  ajv.addKeyword(keyword);
}
addFormats(ajv);

/** Also used by `pennypost check` (server/data-tools/) to validate stored documents. */
export function documentValidator(schema: Readonly<Record<string, unknown>>) {
  const validate = ajv.compile(schema);
  // ajv's error objects are what RxDB's own ajv plugin hands back as validation errors too.
  return (doc: unknown): RxValidationError[] => (validate(doc) ? [] : ((validate.errors ?? []) as unknown as RxValidationError[]));
}

/**
 * RxDB's replication bookkeeping (one meta document per replicated document, holding a copy of
 * it as the server has it) is written by RxDB itself from documents that were validated when they
 * were written here or pulled: validating each copy again cost as much as validating the
 * documents themselves, for every document a sync pushed or pulled.
 */
const notValidated = (): RxValidationError[] => [];

export const wrappedValidatedStorage = wrappedValidateStorageFactory((schema) => (schema.title === META_INSTANCE_SCHEMA_TITLE ? notValidated : documentValidator(schema)), 'ajv');
