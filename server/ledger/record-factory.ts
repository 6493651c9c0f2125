import type { RecordDoc, RecordType } from './schema';
import { RECORD_TEXT } from './text-limits';
import { foldText } from '../lib/fold-text';

/**
 * The one place a stored accounting record is made (docs/ledger.md, "One record factory"). Every
 * writer — accounting.create/update (record-checks.ts), the CSV import, statement imports and their
 * preview overrides, and through those the inbox and recurring items — builds its records here, so
 * a record has one set of defaults, one way its tags are cleaned, one `searchText` and one set of
 * text limits. The range of amounts and balances is the ledger's other check (limits.ts,
 * assertLedgerInRange), applied where records are written.
 *
 * Plain TypeScript without Node: a browser bundle (the phone app) imports the same module.
 * server/architecture.test.ts proves both: nothing else writes `searchText`, and this file and
 * what it imports use nothing of Node.
 */

/** What a writer decides about a record; the factory fills in the rest. Amounts in minor units. */
export interface RecordFields {
  type: RecordType;
  amount: number;
  asset: string;
  date: number;
  toAsset?: string;
  toAmount?: number;
  fee?: number;
  category?: string;
  description?: string;
  tags?: readonly string[];
  attachments?: readonly string[];
  importKey?: string;
}

/** Who and when: the id (the caller's, so this module needs no random source), the owner, the time of the write. */
export interface RecordStamp {
  id: string;
  userId: string;
  now: number;
}

/** The text a record is found by: its description, NFKC-folded and lower case. */
export function searchTextOf(description: string): string {
  return foldText(description);
}

/** Tags as a record keeps them: NFKC, trimmed, empty ones dropped, each once, in the order given. */
export function cleanTags(tags: readonly string[] | undefined): string[] {
  const out: string[] = [];
  for (const tag of tags ?? []) {
    const clean = tag.normalize('NFKC').trim();
    if (clean && !out.includes(clean)) out.push(clean);
  }
  return out;
}

const characters = (text: string) => Array.from(text).length;

/**
 * What keeps a description and tags out of a record, in words, or [] when they fit: a description
 * over 1,000 characters, more than 20 tags, a tag over 32 (characters as JSON Schema counts them:
 * an emoji is one). Writers refuse such a record — the API with a 400, an import by leaving the
 * line out with this reason — never cut it.
 */
export function recordTextProblems(text: { description?: string; tags?: readonly string[] }): string[] {
  const problems: string[] = [];
  const description = text.description ?? '';
  if (characters(description) > RECORD_TEXT.description) problems.push(`the description has ${characters(description)} characters, at most ${RECORD_TEXT.description}`);
  const tags = text.tags ?? [];
  if (tags.length > RECORD_TEXT.tags) problems.push(`${tags.length} tags, at most ${RECORD_TEXT.tags}`);
  for (const tag of tags) {
    if (characters(tag) > RECORD_TEXT.tag) problems.push(`the tag "${Array.from(tag).slice(0, 12).join('')}…" has ${characters(tag)} characters, at most ${RECORD_TEXT.tag}`);
  }
  return problems;
}

/** A new stored record: the writer's fields, the defaults of the rest, `searchText`, created and updated now. */
export function newRecord(fields: RecordFields, stamp: RecordStamp): RecordDoc {
  const description = fields.description ?? '';
  return {
    id: stamp.id,
    userId: stamp.userId,
    type: fields.type,
    amount: fields.amount,
    asset: fields.asset,
    toAsset: fields.toAsset ?? '',
    toAmount: fields.toAmount ?? 0,
    fee: fields.fee ?? 0,
    category: fields.category ?? '',
    description,
    searchText: searchTextOf(description),
    date: fields.date,
    tags: cleanTags(fields.tags),
    attachments: [...(fields.attachments ?? [])],
    importKey: fields.importKey ?? '',
    createdAt: stamp.now,
    updatedAt: stamp.now,
  };
}

/** A record with a new description and/or tags (a preview's override, an edit): `searchText` follows the description. */
export function withText(doc: RecordDoc, text: { description?: string; tags?: readonly string[] }): RecordDoc {
  const next = { ...doc };
  if (text.description !== undefined) {
    next.description = text.description;
    next.searchText = searchTextOf(text.description);
  }
  if (text.tags !== undefined) next.tags = cleanTags(text.tags);
  return next;
}

/** The version of a record an edit writes: a copy of `current` whose `updatedAt` moves past the last one even when the clock did not. */
export function editedRecord(current: RecordDoc, now: number): RecordDoc {
  return { ...current, tags: [...current.tags], attachments: [...current.attachments], updatedAt: Math.max(now, current.updatedAt + 1) };
}
