import { Type, type Static, type TLiteral } from '@sinclair/typebox';
import { Result, Shape } from '../api/result';
import { DATE_ORDERS, LINE_STATUSES, STATEMENT_FORMATS } from './formats/types';
import { NOTICE_SOURCES } from './inbox/notice-common';
import { SKIP_REASONS } from './pipeline/classify';
import { RULE_FIELDS, RULE_OPS } from './rules/rule-types';

/**
 * Result shapes of the imports domain's actions (statement imports, rules, the inbox), per
 * server/api/result.ts; the presenters are typed by them.
 */

const oneOf = <T extends string>(values: readonly T[], description?: string) =>
  Type.Union(
    values.map((v): TLiteral<T> => Type.Literal(v)),
    description ? { description } : {},
  );

const Ms = (description = 'ms') => Type.Integer({ description });
const RecordType = oneOf(['income', 'expense', 'transfer'] as const);
const Format = oneOf(STATEMENT_FORMATS);
const DateOrder = oneOf(DATE_ORDERS);

// ── import.* ───────────────────────────────────────────────────────────────────────────────────────

export const UploadAnswer = Result({ uploadId: Type.String(), bytes: Type.Integer({ description: 'bytes received so far' }) });

export const StatementKind = Result(
  {
    format: Type.Union([Format, Type.Null()], { description: 'null for a file of none of the formats' }),
    account: Type.String({ description: "what the file names near its top ('' if nothing)" }),
    asset: Type.Optional(
      Result(
        { id: Type.String(), name: Type.String(), currency: Type.String() },
        { description: 'your asset the file belongs to (named like the payment app, or like the account the file names or holding its last 4 digits), when there is one' },
      ),
    ),
  },
  { description: '`format`: the file’s format, or null; `account`: what the file names near its top; `asset`: your asset it belongs to, when one is found' },
);

const column = (description: string) => Type.Optional(Type.Integer({ minimum: 0, description }));
const mappingFields = {
  date: Type.Integer({ minimum: 0, description: 'column of the date (0 = first)' }),
  amount: column('column of a signed amount (negative = money out)'),
  inflow: column('column of money in'),
  outflow: column('column of money out'),
  payee: column('column of the other party'),
  description: column('column of the memo / description'),
  externalId: column("column of the bank's transaction id"),
  currency: column('column of the currency code'),
  category: column("column of the bank's category"),
  dateFormat: Type.Optional(oneOf(['YYYY-MM-DD', 'DD/MM/YYYY', 'MM/DD/YYYY', 'DD.MM.YYYY'] as const)),
  decimal: Type.Optional(oneOf(['.', ','] as const)),
  positiveIsExpense: Type.Optional(Type.Boolean({ description: 'a positive amount is money going out' })),
  skipRows: Type.Optional(Type.Integer({ minimum: 0, description: 'lines before the header row' })),
  header: Type.Optional(Type.Boolean({ description: 'false: the file has no header row' })),
  delimiter: Type.Optional(oneOf([',', ';', '\t'] as const)),
  encoding: Type.Optional(oneOf(['utf8', 'gbk', 'latin1'] as const)),
};
export const CsvMappingShape = Shape('CsvMapping', mappingFields, 'Which column of a generic CSV holds what (columns by 0-based index), as import.preview takes it.');

export const CsvDescriptionAnswer = Result(
  {
    headers: Type.Array(Type.String(), { description: "the header row's cells (blank for a file without one)" }),
    delimiter: oneOf([',', ';', '\t'] as const),
    skipRows: Type.Integer({ description: 'lines before the header row (without one: before the first transaction), as given or as found' }),
    header: Type.Boolean({ description: 'as given or found: false for a file without a header row, its headers blank' }),
    sample: Type.Array(Type.Array(Type.String()), { description: 'the first 5 data rows, cells trimmed' }),
    signature: Type.String({ description: "a stable id of the source's layout (its header row)" }),
    guess: Result({ ...mappingFields, date: Type.Optional(mappingFields.date) }, { description: 'a first guess at the mapping, with the date format its cells allow' }),
    saved: Type.Optional(CsvMappingShape),
  },
  {
    description:
      'skipRows and header as found (lines above the header row are skipped by themselves; `header: false` for a file without one, its headers blank); the guess includes the date format its cells allow; `saved`: the mapping saved for files like it, when there is one (an upload stays usable for the preview)',
  },
);

const RuleApplicationShape = Shape(
  'RuleApplication',
  { ruleId: Type.String(), fields: Type.Array(oneOf(['category', 'tags', 'description'] as const)) },
  'Which rule set which fields of one line or draft.',
);

const lineFields = {
  line: Type.Integer({ description: 'where the line is in the file, 1-based' }),
  date: Ms(),
  type: RecordType,
  amount: Type.Number({ description: 'major units' }),
  currency: Type.String({ description: 'ISO 4217 code' }),
  asset: Type.String({ description: 'asset id' }),
  assetName: Type.String(),
  category: Type.String(),
  tags: Type.Array(Type.String()),
  description: Type.String(),
  payee: Type.String(),
  externalId: Type.String({ description: "the source's own transaction id ('' when none)" }),
  status: oneOf(LINE_STATUSES, 'as the file says: done, refund, closed, failed or pending'),
  refund: Type.Boolean(),
  rules: Type.Array(RuleApplicationShape),
  reason: Type.Optional(Type.String({ description: 'why the line is a duplicate or skipped' })),
  skipReason: Type.Optional(oneOf(SKIP_REASONS)),
  matchId: Type.Optional(Type.String({ description: 'the ledger record the line is, or looks like' })),
};
export const ImportLineShape = Shape('ImportLine', lineFields, 'One line of a statement and what the import makes of it.');
export type ImportLineView = Static<typeof ImportLineShape>;

const DuplicateLineShape = Shape(
  'DuplicateLine',
  {
    ...lineFields,
    match: Type.Optional(
      Result(
        { id: Type.String(), date: Ms(), description: Type.String(), category: Type.String(), amount: Type.Number({ description: 'major units' }) },
        { description: 'likely duplicates: the record it looks like' },
      ),
    ),
  },
  'A line imported before, or likely one already in the ledger (then `match` shows the record).',
);

const InterruptedShape = Shape(
  'InterruptedImport',
  {
    id: Type.String(),
    format: Format,
    account: Type.String(),
    startedAt: Ms(),
    records: Type.Integer({ description: 'what the import set out to write' }),
    written: Type.Integer({ description: 'how many of them are in the ledger' }),
  },
  'An import a crash cut off while it was being written.',
);

export const PreviewAnswer = Result(
  {
    token: Type.String({ description: 'for import.commit' }),
    expiresAt: Ms('ms: when the token expires'),
    summary: Result({
      format: Format,
      account: Type.String(),
      lines: Type.Integer(),
      create: Type.Integer(),
      duplicate: Type.Integer(),
      likelyDuplicate: Type.Integer(),
      skipped: Type.Integer(),
      invalid: Type.Integer(),
      ruled: Type.Integer({ description: 'lines a rule changed' }),
      newCategories: Type.Array(Result({ type: oneOf(['income', 'expense'] as const), name: Type.String() })),
      suggestedAsset: Type.Optional(
        Result({ id: Type.String(), name: Type.String() }, { description: 'the asset the source belongs to (支付宝 for an Alipay bill) when another was chosen' }),
      ),
      dateOrder: Type.Optional(
        Result({ used: DateOrder, possible: Type.Array(DateOrder) }, { description: "the file's dates read in more than one order (QIF): the one used and those possible" }),
      ),
    }),
    create: Type.Array(ImportLineShape),
    duplicates: Type.Array(DuplicateLineShape),
    skipped: Type.Array(ImportLineShape, { description: 'with `reason` and `skipReason`' }),
    invalid: Type.Array(Result({ line: Type.Integer(), kind: Type.String(), reason: Type.String() })),
    interrupted: Type.Array(InterruptedShape, { description: 'your imports that a crash cut off (as import.interrupted lists them)' }),
  },
  { description: 'lists hold at most 200 lines each, the counts in `summary` are complete' },
);

export const CommitAnswer = Result({
  created: Type.Integer(),
  alreadyImported: Type.Integer(),
  leftOut: Type.Integer({ description: 'lines to create that were not written (left out by you, or `likelyNow`)' }),
  likelyNow: Type.Integer({ description: 'lines left out because a record that looks like the same payment was booked since the preview' }),
  recordIds: Type.Array(Type.String(), { description: 'the first 200 records written' }),
});

export const InterruptedList = Result({ imports: Type.Array(InterruptedShape) });

export const FinishAnswer = Result({
  created: Type.Integer(),
  alreadyImported: Type.Integer({ description: 'records the interrupted import had written (or that are in the ledger by now)' }),
  recordIds: Type.Array(Type.String(), { description: 'the first 200 records written' }),
});

export const Forgotten = Result({ forgotten: Type.Literal(true) });

// ── rule.* ─────────────────────────────────────────────────────────────────────────────────────────

const RuleMatchShape = Result({
  field: oneOf(RULE_FIELDS),
  op: oneOf(RULE_OPS),
  value: Type.Union([Type.String(), Type.Number()], { description: 'text, an amount in major units, or an asset id' }),
});
const RuleSetShape = Result({
  category: Type.Optional(Type.String()),
  tags: Type.Optional(Type.Array(Type.String(), { description: 'added to the record’s own' })),
  description: Type.Optional(Type.String({ description: 'replaces the description' })),
});

export const RuleShape = Shape(
  'Rule',
  {
    id: Type.String(),
    match: RuleMatchShape,
    set: RuleSetShape,
    autoConfirm: Type.Boolean({ description: 'inbox drafts it matches are recorded at once' }),
    createdAt: Ms(),
    updatedAt: Ms(),
  },
  'An import rule: when a line or an inbox draft matches, set its category, tags or description.',
);
export type RuleView = Static<typeof RuleShape>;

export const RuleList = Result({
  list: Type.Array(RuleShape),
  suggestions: Type.Array(
    Result({
      key: Type.String({ description: 'for rule.dismissSuggestion' }),
      match: RuleMatchShape,
      set: RuleSetShape,
      count: Type.Integer({ description: "how many times you moved this payee's records to this category" }),
    }),
  ),
});

export const Dismissed = Result({ dismissed: Type.Literal(true) });

// ── inbox.* ────────────────────────────────────────────────────────────────────────────────────────

export const InboxKey = Result({ inboxKey: Type.String(), url: Type.String({ description: 'where notices are posted' }) });

export const DRAFT_PROBLEMS = ['needsAsset', 'currencyMismatch', 'badAmount'] as const;

export const DraftShape = Shape(
  'InboxDraft',
  {
    id: Type.String(),
    receivedAt: Ms(),
    type: oneOf(['income', 'expense'] as const),
    amount: Type.Number({ description: 'major units' }),
    currency: Type.String({ description: "ISO 4217: the notice's, else the asset's ('' when neither is known)" }),
    merchant: Type.String(),
    date: Ms('ms: when it happened'),
    cardTail: Type.String({ description: "last digits of the card the notice names ('' if none)" }),
    source: oneOf(NOTICE_SOURCES, 'which kind of notice it was read as'),
    note: Type.String({ description: 'the original text, up to 500 characters' }),
    asset: Type.String({ description: "asset id ('' when none is found)" }),
    assetName: Type.String(),
    category: Type.String(),
    tags: Type.Array(Type.String()),
    description: Type.String(),
    rules: Type.Array(RuleApplicationShape),
    autoConfirm: Type.Boolean(),
    problem: Type.Optional(oneOf(DRAFT_PROBLEMS, 'what stops a confirm without overrides')),
  },
  'A draft record read from a forwarded payment notice, with your rules applied.',
);
export type DraftView = Static<typeof DraftShape>;

export const DraftList = Result({ list: Type.Array(DraftShape) }, { description: 'newest first' });

export const DraftConfirmed = Result({ id: Type.String({ description: 'the record id' }), created: Type.Boolean({ description: 'false when it was already recorded' }) });
