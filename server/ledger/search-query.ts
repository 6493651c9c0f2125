import { zonedMidnight } from '../lib/calendar';
import { ledgerErrors } from './errors';

/**
 * The search syntax of the Records screen (docs/ui.md, "Search syntax"): a pure parser from the
 * text of the search box to terms, and the compilation of those terms to bounds a scan can test
 * cheaply. Terms AND together.
 *
 * - a word matches descriptions, category names, tags and asset names (case-insensitive,
 *   NFKC-normalised, substring: Chinese needs no spaces); `"two words"` is one phrase;
 * - `tag:x`, `cat:x` (or `category:x`), `asset:x` match that field only;
 * - `35.5` an exact amount; `>100`, `>=100`, `<50`, `<=50`, `=35.5`; `100..200` (inclusive,
 *   either side may be left open) — major units of each record's own currency;
 * - `2026-11`, `2026-11-03` (or `2026/11/03`) a month or a day in the user's time zone; the same
 *   operators and ranges work on dates (`>=2026-11-01`, `2026-09..2026-11`).
 */

/** Why a query was refused; the UI translates these (records.searchProblem.*). */
export type SearchProblem = 'unclosedQuote' | 'needsValue' | 'notAmountOrDate' | 'notADate' | 'mixedRange' | 'emptyRange' | 'tooManyTerms';

export type TextField = 'any' | 'tag' | 'category' | 'asset';

/** A decimal in major units, kept as digits so it compares exactly with minor units. */
export interface Decimal {
  int: string;
  frac: string;
}

/** A calendar month (day undefined) or day. */
export interface CalendarDate {
  year: number;
  month: number;
  day?: number;
}

interface Bound<T> {
  value: T;
  inclusive: boolean;
}

export type SearchTerm =
  | { kind: 'text'; field: TextField; value: string }
  | { kind: 'amount'; lo?: Bound<Decimal>; hi?: Bound<Decimal> }
  | { kind: 'date'; lo?: Bound<CalendarDate>; hi?: Bound<CalendarDate> };

export const MAX_TERMS = 20;

/** A Map, not an object: `constructor:x` must not find Object.prototype's `constructor`. */
const QUALIFIERS = new Map<string, TextField>([
  ['tag', 'tag'],
  ['cat', 'category'],
  ['category', 'category'],
  ['asset', 'asset'],
]);
const NUMBER = /^(\d{1,15})(?:\.(\d{1,12}))?$/;
const DATE = /^(\d{4})[-/](\d{1,2})(?:[-/](\d{1,2}))?$/;

/** Capture group `n` of a match, for a group the pattern does not make optional (a match always has it). */
function group(match: RegExpExecArray, n: number): string {
  const text = match[n];
  if (text === undefined) throw new Error(`search: group ${n} missing from the match of "${match[0]}"`);
  return text;
}

function refuse(problem: SearchProblem, token: string): never {
  throw ledgerErrors.badSearch(problem, token).with({ problem, token }).at('q');
}

/** Splits on white space; double quotes group words (and make them plain text). */
function tokenize(q: string): Array<{ text: string; quoted: boolean }> {
  const tokens: Array<{ text: string; quoted: boolean }> = [];
  let text = '';
  let quoted = false;
  let inQuote = false;
  let started = false;
  for (const ch of q) {
    if (ch === '"') {
      inQuote = !inQuote;
      quoted = true;
      started = true;
    } else if (!inQuote && /\s/u.test(ch)) {
      if (started) tokens.push({ text, quoted });
      text = '';
      quoted = false;
      started = false;
    } else {
      text += ch;
      started = true;
    }
  }
  if (inQuote) refuse('unclosedQuote', q.slice(q.lastIndexOf('"')));
  if (started) tokens.push({ text, quoted });
  return tokens;
}

function parseDecimal(text: string): Decimal | undefined {
  const m = NUMBER.exec(text);
  if (!m) return undefined;
  return { int: group(m, 1), frac: m.at(2) ?? '' };
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** A month or a day; `undefined` when the text is not shaped like one, 400 when it is shaped like one but impossible. */
function parseDate(text: string): CalendarDate | undefined {
  const m = DATE.exec(text);
  if (!m) return undefined;
  const year = Number(group(m, 1));
  const month = Number(group(m, 2));
  const dayText = m.at(3);
  const day = dayText === undefined ? undefined : Number(dayText);
  if (year < 1970 || month < 1 || month > 12 || (day !== undefined && (day < 1 || day > daysIn(year, month)))) refuse('notADate', text);
  return { year, month, day };
}

type Value = { kind: 'amount'; value: Decimal } | { kind: 'date'; value: CalendarDate };

function parseValue(text: string, token: string): Value {
  const date = parseDate(text);
  if (date) return { kind: 'date', value: date };
  const decimal = parseDecimal(text);
  if (decimal) return { kind: 'amount', value: decimal };
  return refuse('notAmountOrDate', token);
}

function compareDecimal(a: Decimal, b: Decimal): number {
  const ai = a.int.replace(/^0+/, '');
  const bi = b.int.replace(/^0+/, '');
  if (ai.length !== bi.length) return ai.length - bi.length;
  if (ai !== bi) return ai < bi ? -1 : 1;
  const width = Math.max(a.frac.length, b.frac.length);
  const af = a.frac.padEnd(width, '0');
  const bf = b.frac.padEnd(width, '0');
  return af === bf ? 0 : af < bf ? -1 : 1;
}

function compareDate(a: CalendarDate, b: CalendarDate): number {
  return a.year - b.year || a.month - b.month || (a.day ?? 1) - (b.day ?? 1);
}

function rangeTerm(lo: Value | undefined, hi: Value | undefined, token: string): SearchTerm {
  const kind = (lo ?? hi)?.kind;
  if (lo && hi && lo.kind !== hi.kind) refuse('mixedRange', token);
  if (kind === 'amount') {
    const l = lo?.value as Decimal | undefined;
    const h = hi?.value as Decimal | undefined;
    if (l && h && compareDecimal(l, h) > 0) refuse('emptyRange', token);
    return { kind: 'amount', lo: l && { value: l, inclusive: true }, hi: h && { value: h, inclusive: true } };
  }
  const l = lo?.value as CalendarDate | undefined;
  const h = hi?.value as CalendarDate | undefined;
  if (l && h && compareDate(l, h) > 0) refuse('emptyRange', token);
  return { kind: 'date', lo: l && { value: l, inclusive: true }, hi: h && { value: h, inclusive: true } };
}

function parseToken(text: string, quoted: boolean): SearchTerm {
  if (quoted) return { kind: 'text', field: 'any', value: text };
  const qualifier = /^([a-z]+):(.*)$/i.exec(text);
  const field = qualifier && QUALIFIERS.get(group(qualifier, 1).toLowerCase());
  if (qualifier && field) {
    const value = group(qualifier, 2);
    if (value === '') refuse('needsValue', text);
    return { kind: 'text', field, value };
  }
  const op = /^(>=|<=|>|<|=)(.*)$/.exec(text);
  if (op) {
    const operator = group(op, 1);
    const operand = group(op, 2);
    if (operand === '') refuse('needsValue', text);
    const value = parseValue(operand, text);
    const inclusive = operator !== '>' && operator !== '<';
    const bound = { value: value.value, inclusive };
    const lo = operator.startsWith('>') || operator === '=' ? bound : undefined;
    const hi = operator.startsWith('<') || operator === '=' ? bound : undefined;
    return value.kind === 'amount'
      ? { kind: 'amount', lo: lo as Bound<Decimal> | undefined, hi: hi as Bound<Decimal> | undefined }
      : { kind: 'date', lo: lo as Bound<CalendarDate> | undefined, hi: hi as Bound<CalendarDate> | undefined };
  }
  const dots = text.indexOf('..');
  if (dots >= 0) {
    const left = text.slice(0, dots);
    const right = text.slice(dots + 2);
    if (left === '' && right === '') refuse('needsValue', text);
    return rangeTerm(left === '' ? undefined : parseValue(left, text), right === '' ? undefined : parseValue(right, text), text);
  }
  const date = parseDate(text);
  if (date) return { kind: 'date', lo: { value: date, inclusive: true }, hi: { value: date, inclusive: true } };
  const decimal = parseDecimal(text);
  if (decimal) return { kind: 'amount', lo: { value: decimal, inclusive: true }, hi: { value: decimal, inclusive: true } };
  return { kind: 'text', field: 'any', value: text };
}

/** The terms of a query (normalised: NFKC, lower case for text). A malformed query is a 400 naming the token. */
export function parseSearch(q: string): SearchTerm[] {
  const tokens = tokenize(q.normalize('NFKC'));
  if (tokens.length > MAX_TERMS) refuse('tooManyTerms', String(tokens.length));
  const terms: SearchTerm[] = [];
  for (const token of tokens) {
    if (token.text === '') continue;
    const term = parseToken(token.text, token.quoted);
    terms.push(term.kind === 'text' ? { ...term, value: term.value.toLowerCase() } : term);
  }
  return terms;
}

// ---------------------------------------------------------------- compiled bounds

/** Inclusive bounds in minor units for a currency with `digits` decimals. */
export function amountBounds(term: Extract<SearchTerm, { kind: 'amount' }>, digits: number): [number, number] {
  const split = (d: Decimal): [number, boolean] => {
    const whole = Number(d.int + d.frac.padEnd(digits, '0').slice(0, digits));
    return [whole, /[1-9]/.test(d.frac.slice(digits))];
  };
  let min = -Infinity;
  let max = Infinity;
  if (term.lo) {
    const [b, rest] = split(term.lo.value);
    min = term.lo.inclusive && !rest ? b : b + 1;
  }
  if (term.hi) {
    const [b, rest] = split(term.hi.value);
    max = term.hi.inclusive || rest ? b : b - 1;
  }
  return [min, max];
}

function startOf(d: CalendarDate, timeZone: string): number {
  return zonedMidnight(d.year, d.month, d.day ?? 1, timeZone);
}

function endOf(d: CalendarDate, timeZone: string): number {
  return d.day === undefined ? zonedMidnight(d.year, d.month + 1, 1, timeZone) : zonedMidnight(d.year, d.month, d.day + 1, timeZone);
}

/** The date span `[from, to)` in ms of a date term in a time zone. */
export function dateSpan(term: Extract<SearchTerm, { kind: 'date' }>, timeZone: string): [number, number] {
  const from = term.lo ? (term.lo.inclusive ? startOf(term.lo.value, timeZone) : endOf(term.lo.value, timeZone)) : -Infinity;
  const to = term.hi ? (term.hi.inclusive ? endOf(term.hi.value, timeZone) : startOf(term.hi.value, timeZone)) : Infinity;
  return [from, to];
}
