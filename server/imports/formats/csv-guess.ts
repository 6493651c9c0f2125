import { DATE_FORMATS, HEADER_NAMES, headerKey, PLACEHOLDER, readCell, type Column } from './csv-columns';
import { guessDateFormat, parseCsvDate } from './csv-dates';
import type { CsvDescription } from './csv-mapped';
import { parseAmount } from './shared';
import type { CsvMapping } from './types';

/** The import wizard's first guess of a generic CSV's mapping: by header names, else by what the cells hold. */

/**
 * A first mapping from the header names of common bank exports (English, German, French,
 * Spanish, Dutch, Chinese). Only columns it recognises are set; a signed amount column wins over
 * money-in/money-out columns. The date format cannot be told from a header: see guessDateFormat.
 */
export function guessMapping(headers: string[], sample: readonly (readonly string[])[] = []): Partial<CsvMapping> {
  const keys = headers.map(headerKey);
  const taken = new Set<number>();
  const mapping: Partial<CsvMapping> = {};
  // A column of money or currency whose sample rows hold only placeholders ('-', '/', nothing) is
  // not the one: ICBC's 交易金额(收入/支出) are all '-', its 记账金额 columns hold the amounts.
  const empty = (index: number) => sample.length > 0 && sample.every((row) => PLACEHOLDER.test(readCell(row[index] ?? '')));
  const VALUES = new Set<Column>(['amount', 'inflow', 'outflow', 'currency']);
  let weakPayee = -1;
  for (const [tier, [column, pattern]] of HEADER_NAMES.entries()) {
    if (mapping[column] !== undefined) continue;
    if ((column === 'inflow' || column === 'outflow') && mapping.amount !== undefined) continue;
    const index = keys.findIndex((key, i) => !taken.has(i) && pattern.test(key) && !(VALUES.has(column) && empty(i)));
    if (index < 0) continue;
    mapping[column] = index;
    taken.add(index);
    if (tier === WEAK_PAYEE_TIER) weakPayee = index;
  }
  // `Date, Description, Amount, Reference`: the Description is what the line was for, not a payee.
  if (mapping.payee !== undefined && mapping.payee === weakPayee && mapping.description === undefined) {
    mapping.description = mapping.payee;
    delete mapping.payee;
  }
  return mapping;
}

/** The HEADER_NAMES tier that takes a "Description" column as the payee (guessMapping moves it to the description when nothing else is). */
const WEAK_PAYEE_TIER = HEADER_NAMES.findIndex(([column, pattern]) => column === 'payee' && pattern.test('description'));

/**
 * The wizard's first mapping of a described file: columns by their names (guessMapping), or, in a
 * file without a header row, by what the first rows hold (guessByContent); the date format the
 * date column's cells allow; the lines to skip and the header setting the description found.
 */
export function guessFor(description: CsvDescription): Partial<CsvMapping> {
  const columns = description.header ? guessMapping(description.headers, description.sample) : guessByContent(description.sample);
  const dateFormat = columns.date === undefined ? undefined : guessDateFormat(description.sample.map((row) => row[columns.date ?? 0] ?? ''));
  return { ...columns, ...(dateFormat ? { dateFormat } : {}), skipRows: description.skipRows, ...(description.header ? {} : { header: false }) };
}

/**
 * Columns by their cells, for a file without a header row: the date is the first column whose
 * cells are dates; of the columns of numbers, two side by side never filled in the same row are
 * money out and money in (banks put the debit first), else the first is a signed amount; the
 * description is the text column with the longest cells.
 */
export function guessByContent(sample: readonly (readonly string[])[]): Partial<CsvMapping> {
  const width = Math.max(0, ...sample.map((row) => row.length));
  const column = (index: number) => sample.map((row) => readCell(row[index] ?? ''));
  const isDate = (cell: string) => DATE_FORMATS.some((format) => parseCsvDate(cell, format, 'UTC') !== null);
  const isNumber = (cell: string) => /\d/.test(cell) && parseAmount(cell, '.') !== null;
  const mapping: Partial<CsvMapping> = {};
  const dates = [...Array(width).keys()].filter((i) => column(i).some((c) => c !== '') && column(i).every((c) => c === '' || isDate(c)));
  if (dates.length > 0) mapping.date = dates[0];
  const numbers = [...Array(width).keys()].filter((i) => i !== mapping.date && column(i).some(isNumber) && column(i).every((c) => PLACEHOLDER.test(c) || isNumber(c)));
  const outflow = numbers.find(
    (i, n) => numbers[n + 1] === i + 1 && sample.every((row) => PLACEHOLDER.test(readCell(row[i] ?? '')) || PLACEHOLDER.test(readCell(row[i + 1] ?? ''))),
  );
  if (outflow !== undefined) {
    mapping.outflow = outflow;
    mapping.inflow = outflow + 1;
  } else if (numbers.length > 0) mapping.amount = numbers[0];
  const texts = [...Array(width).keys()].filter((i) => i !== mapping.date && !numbers.includes(i) && column(i).some((c) => c !== ''));
  const longest = texts.sort((a, b) => column(b).join('').length - column(a).join('').length).at(0);
  if (longest !== undefined) mapping.description = longest;
  return mapping;
}
