import iconv from 'iconv-lite';
import { zonedMidnight, zonedTime } from '../../lib/calendar';
import { StatementError, type InvalidLine } from './types';

/**
 * Helpers every statement parser uses: text decoding (UTF-8 with or without BOM, UTF-16 with BOM,
 * GBK/GB18030 as Chinese exports write it), local date-times, and amounts as exact decimals.
 */

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** What the refusal of a file that is not a payment app's bill suggests: a bank's own CSV is read by the generic CSV format. */
export const AS_CSV = 'If it is a bank\'s CSV export, import it as "Other CSV" (format csv) and choose its columns.';

/**
 * The file's text. A BOM decides; otherwise strict UTF-8, and when that fails GB18030 (a superset
 * of GBK, what Alipay's PC export writes). `expect` is a word the text must contain when decoded
 * right (a Chinese header such as '交易'); with it, a GBK file that happens to be valid UTF-8 bytes
 * is still caught, and a file that is neither is refused as 'encoding'.
 */
export function decodeText(bytes: Buffer, expect?: RegExp): string {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return bytes.subarray(3).toString('utf8');
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return iconv.decode(bytes.subarray(2), 'utf16le');
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return iconv.decode(bytes.subarray(2), 'utf16be');
  let text: string | undefined;
  try {
    text = utf8.decode(bytes);
  } catch {
    text = undefined;
  }
  if (text !== undefined && (!expect || expect.test(text))) return text;
  const gb = iconv.decode(bytes, 'gb18030');
  if (expect && !expect.test(gb)) {
    throw new StatementError(
      'encoding',
      'The file could not be read as UTF-8 or GBK text with the expected headers: check that it is the unmodified export (re-saving it in a spreadsheet can change its encoding).',
    );
  }
  return gb;
}

/** Local wall-clock time in `timeZone` → ms (months 1–12). Returns null for impossible dates (Feb 30, hour 25). */
export function localDateTime(year: number, month: number, day: number, timeZone: string, hour = 0, minute = 0, second = 0): number | null {
  if (!Number.isInteger(year) || year < 1970 || year > 2200) return null;
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return null;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) return null;
  const midnight = zonedMidnight(year, month, day, timeZone);
  const clock = ((hour * 60 + minute) * 60 + Math.min(second, 59)) * 1000;
  // A day with a DST change is not 24 hours long: its times are converted one by one.
  if (clock === 0 || zonedMidnight(year, month, day + 1, timeZone) - midnight === 86_400_000) return midnight + clock;
  return zonedTime(year, month, day, hour, minute, Math.min(second, 59), timeZone);
}

/** `YYYY-MM-DD[ HH:mm[:ss]]` (also `/` or `.` between the date parts) in `timeZone` → ms, or null. */
export function parseLocalDateTime(text: string, timeZone: string): number | null {
  const m = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[ T]+(\d{1,2}):(\d{2})(?::(\d{2}))?)?$/.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0'] = m as unknown as Array<string | undefined>;
  return localDateTime(Number(y), Number(mo), Number(d), timeZone, Number(h), Number(mi), Number(s));
}

/**
 * Capture group `index` of a successful match, for a group the pattern always fills (one outside
 * any optional part or alternative). Its absence would be a fault of the pattern, not of the
 * text read: an internal error, never a reading of the input.
 */
export function captured(match: RegExpMatchArray, index: number): string {
  const value = match.at(index);
  if (value === undefined) throw new Error(`captured: group ${String(index)} took no part in the match; the pattern does not always fill it.`);
  return value;
}

const QUOTE_OR_SPACE = /[\s'"]/;
/** The longest cell parseAmount reads as an amount (padding included). */
const AMOUNT_TEXT_MAX = 256;

/**
 * `text` without the characters `edge` matches at either end, one character at a time (a
 * `[…]+$` regular expression would retry from every character of a long run inside the text).
 */
export function withoutEdges(text: string, edge: RegExp): string {
  let start = 0;
  let end = text.length;
  while (start < end && edge.test(text.charAt(start))) start++;
  while (end > start && edge.test(text.charAt(end - 1))) end--;
  return text.slice(start, end);
}

/**
 * An amount cell → a positive decimal string without sign, currency marks or thousands separators
 * ('¥1,234.50' → '1234.50'), and its sign. `decimal` is the decimal separator of the file ('.' or ',').
 * null when the cell is not a number.
 */
export function parseAmount(text: string, decimal: '.' | ',' = '.'): { amount: string; negative: boolean } | null {
  // No amount is written in hundreds of characters: a longer cell is not read at all (it costs time per character).
  if (text.length > AMOUNT_TEXT_MAX) return null;
  let value = withoutEdges(text, QUOTE_OR_SPACE);
  value = value.replace(/[¥￥$€£]|RMB|CNY|元/gi, '').replace(/\s/g, '');
  let negative = false;
  if (/^\(.*\)$/.test(value)) {
    negative = true;
    value = value.slice(1, -1);
  }
  if (value.startsWith('-') || value.startsWith('−')) {
    negative = !negative;
    value = value.slice(1);
  } else if (value.startsWith('+')) value = value.slice(1);
  if (value.endsWith('-')) {
    negative = !negative;
    value = value.slice(0, -1);
  }
  if (decimal === ',') value = value.replace(/[.\u00a0']/g, '').replace(',', '.');
  else value = value.replace(/,/g, '');
  if (!/^\d+(\.\d+)?$/.test(value) && !/^\.\d+$/.test(value)) return null;
  if (value.startsWith('.')) value = `0${value}`;
  value = value.replace(/^0+(?=\d)/, '');
  return { amount: value, negative };
}

/** True for an amount string that is zero ('0', '0.00'). */
export function isZeroAmount(amount: string): boolean {
  return /^0+(\.0+)?$/.test(amount);
}

/** Trims a cell the way Chinese exports need it: spaces, tabs (order numbers end in one), and the '/' placeholder. */
export function cleanCell(text: string | undefined): string {
  // trim() removes exactly what /\s/ matches (tabs and U+3000 included), several times faster than a replace.
  const value = (text ?? '').trim();
  return value === '/' ? '' : value;
}

/**
 * The text of a file in a Western bank format (OFX, QIF, CAMT), which says its charset in a header
 * (OFX `CHARSET:1252`, XML `encoding="ISO-8859-1"`) or not at all (QIF). A BOM decides; UTF-16
 * without a BOM is recognised by its zero bytes. Otherwise the bytes decide when they disagree
 * with the label, as banks often mislabel: bytes that are valid UTF-8 and not plain ASCII are
 * UTF-8 (a Windows-1252 text is practically never valid UTF-8); invalid UTF-8 is read as
 * Windows-1252 (what a file labelled UTF-8 but written by an old system is). Any other label
 * iconv-lite knows (`ISO-8859-2`, `windows-1250`…) is honoured. Zero bytes in what is left are
 * not text: 'encoding'.
 */
export function decodeLabelledText(bytes: Buffer, label?: string): string {
  const utf8Bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  if (utf8Bom || (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)))) return decodeText(bytes);
  if (bytes.length >= 4 && bytes[0] !== 0 && bytes[1] === 0 && bytes[2] !== 0 && bytes[3] === 0) return iconv.decode(bytes, 'utf16le');
  if (bytes.length >= 4 && bytes[0] === 0 && bytes[1] !== 0 && bytes[2] === 0 && bytes[3] !== 0) return iconv.decode(bytes, 'utf16be');
  if (bytes.includes(0)) {
    throw new StatementError('encoding', 'The file is not text (it holds binary data, as a ZIP, PDF or spreadsheet does): export the statement again as an OFX, QIF or CAMT file.');
  }
  let utf: string | undefined;
  try {
    utf = utf8.decode(withoutCutUtf8Tail(bytes));
  } catch {
    utf = undefined;
  }
  const name = (label ?? '').trim().toLowerCase();
  const single = name !== '' && !/^utf-?8$/.test(name);
  if (utf !== undefined && (!single || /[\u0080-\uffff]/.test(utf))) return utf;
  if (single && !/^(?:us-?ascii|ascii|none|iso-?8859-1|8859-1|latin-?1|l1)$/.test(name)) {
    const known = /^\d{3,4}$/.test(name) ? `cp${name}` : name;
    if (iconv.encodingExists(known)) return iconv.decode(bytes, known);
  }
  return iconv.decode(bytes, 'windows-1252');
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** XML/SGML character references (`&#228;`, `&#xE4;`) and the predefined entities (`&amp;`…) → text, in one pass; anything else stays as written. */
export function decodeXmlEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,6});/gi, (whole, ref: string) => {
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

/**
 * `description` without the payee repeated: '' when it is the payee, and without a `;`-separated
 * part that is the payee ('POS MERCHANDISE;MCDONALD'S #112' with payee 'MCDONALD'S #112' → 'POS
 * MERCHANDISE'). Case and runs of spaces do not count.
 */
export function withoutPayee(description: string, payee: string): string {
  const text = description.trim();
  if (!payee || !text) return text;
  const key = (value: string) => value.trim().replace(/\s+/g, ' ').toLowerCase();
  const payeeKey = key(payee);
  if (key(text) === payeeKey) return '';
  if (!text.includes(';')) return text;
  const parts = text.split(';');
  const kept = parts.filter((part) => key(part) !== payeeKey);
  if (kept.length === parts.length) return text;
  return kept
    .map((part) => part.trim())
    .filter(Boolean)
    .join('; ');
}

/** One record of a CSV text: its cells as written (not trimmed) and the 1-based line it starts on. */
export interface CsvRecord {
  line: number;
  cells: string[];
  /** A quoted cell was still open at the end of the text: the file was cut off inside this record. */
  unterminated: boolean;
  /** The record runs to the end of the text with no line break after it (the last line of a file cut off mid-row looks like this). */
  unfinished: boolean;
}

/**
 * CSV text → records, one at a time, tolerant the way Chinese payment exports need it: a quote
 * opens a quoted cell only at the start of a cell (WeChat writes `点击底部"多多视频"` unquoted, and
 * the quotes stay as written), text after a closing quote up to the delimiter is kept, a quoted
 * cell may span lines, and a quote still open at the end of the text gives an `unterminated`
 * record instead of an error (the complete records before it still count). Lines without a quote
 * take a fast path (`split`); records are made as they are read, so a parser that handles each
 * and lets it go keeps a 100k-row export cheap for the garbage collector (csv-parse takes ~1 s
 * for the splitting alone).
 */
export function* csvRecords(text: string, delimiter: ',' | ';' | '\t' = ','): Generator<CsvRecord, void, undefined> {
  let pos = 0;
  let lineNumber = 0;
  let lineBreak = true;
  const readLine = (): string => {
    const nl = text.indexOf('\n', pos);
    const s = text.slice(pos, nl === -1 ? text.length : nl);
    lineBreak = nl !== -1;
    pos = nl === -1 ? text.length : nl + 1;
    lineNumber++;
    return s.endsWith('\r') ? s.slice(0, -1) : s;
  };
  while (pos < text.length) {
    const line = lineNumber + 1;
    let s = readLine();
    if (!s.includes('"')) {
      yield { line, cells: s.split(delimiter), unterminated: false, unfinished: !lineBreak };
      continue;
    }
    const cells: string[] = [];
    let unterminated = false;
    let p = 0;
    for (;;) {
      // A quoted cell's pieces, joined once (a string grown piece by piece over many lines is slow to collect).
      const value: string[] = [];
      if (s.startsWith('"', p)) {
        p++;
        for (;;) {
          const q = s.indexOf('"', p);
          if (q === -1) {
            value.push(s.slice(p));
            if (pos >= text.length) {
              unterminated = true;
              p = s.length;
              break;
            }
            value.push('\n');
            s = readLine();
            p = 0;
            continue;
          }
          value.push(s.slice(p, q));
          if (s.startsWith('"', q + 1)) {
            value.push('"');
            p = q + 2;
            continue;
          }
          p = q + 1;
          break;
        }
      }
      const d = s.indexOf(delimiter, p);
      if (d === -1 || unterminated) {
        value.push(s.slice(p));
        cells.push(value.join(''));
        break;
      }
      value.push(s.slice(p, d));
      cells.push(value.join(''));
      p = d + 1;
    }
    yield { line, cells, unterminated, unfinished: !lineBreak };
  }
}

/** All records of a CSV text at once (see `csvRecords`). */
export function readCsvRecords(text: string, delimiter: ',' | ';' | '\t' = ','): CsvRecord[] {
  return Array.from(csvRecords(text, delimiter));
}

/** Local midnight by `zone year-month-day`: NaN for a day that is not 24 hours long (DST), null for an impossible date. */
const midnights = new Map<string, number | null>();

/**
 * localDateTime with each day's midnight remembered: a statement has few distinct days, and the
 * zone lookup is most of the time of reading a row (100k rows: seconds → milliseconds). A day a DST
 * change makes 23 or 25 hours long is converted time by time.
 */
export function cachedLocalDateTime(year: number, month: number, day: number, timeZone: string, hour = 0, minute = 0, second = 0): number | null {
  const key = `${timeZone} ${year}-${month}-${day}`;
  let midnight = midnights.get(key);
  if (midnight === undefined) {
    if (midnights.size >= 10_000) midnights.clear();
    midnight = localDateTime(year, month, day, timeZone);
    if (midnight !== null && zonedMidnight(year, month, day + 1, timeZone) - midnight !== 86_400_000) midnight = NaN;
    midnights.set(key, midnight);
  }
  if (midnight === null) return null;
  if (Number.isNaN(midnight)) return localDateTime(year, month, day, timeZone, hour, minute, second);
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) return null;
  return midnight + ((hour * 60 + minute) * 60 + Math.min(second, 59)) * 1000;
}

/** parseLocalDateTime with each day's midnight remembered (cachedLocalDateTime), for reading many rows. */
export function localDateTimeParser(timeZone: string): (text: string) => number | null {
  return (text) => {
    const m = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[ T]+(\d{1,2}):(\d{2})(?::(\d{2}))?)?$/.exec(text.trim());
    if (!m) return null;
    const [, year, month, day, hour = '0', minute = '0', second = '0'] = m;
    return cachedLocalDateTime(Number(year), Number(month), Number(day), timeZone, Number(hour), Number(minute), Number(second));
  };
}

/**
 * The bytes without a UTF-8 character cut off at their end (a download or copy stopped mid-file),
 * when that leaves valid UTF-8; otherwise the bytes as they are. With this, `decodeText` still
 * reads a cut UTF-8 file as UTF-8 instead of falling back to GBK and garbling all of it.
 */
export function withoutCutUtf8Tail(bytes: Buffer): Buffer {
  const lastBytes = [...bytes.subarray(Math.max(0, bytes.length - 3))].reverse();
  for (const [index, byte] of lastBytes.entries()) {
    const back = index + 1;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back for the lead byte
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    if (need <= back) return bytes;
    const cut = bytes.subarray(0, bytes.length - back);
    try {
      utf8.decode(cut);
      return cut;
    } catch {
      return bytes;
    }
  }
  return bytes;
}

/**
 * Text that shows the marks of a wrong decoding somewhere along the way: replacement characters
 * (bytes a decoder could not read), runs of '?' (characters a code page could not hold when the
 * file was re-saved), or runs of Latin-1 letters (GBK or UTF-8 bytes read as Latin-1/Windows-1252:
 * '支付宝' → 'Ö§¸¶±¦'). A European bank's accented words have single accented letters, not runs.
 */
export function looksMisdecoded(text: string): boolean {
  const sample = text.slice(0, 20_000);
  if (sample.includes('\ufffd') || /\?{4,}/.test(sample)) return true;
  const runs = sample.match(/[\u0080-\u00ff\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc\u2013-\u2022\u2026\u2030\u2039\u203a\u20ac\u2122]{2,}/g);
  return (runs?.length ?? 0) >= 3;
}

/** The last 4 digits of a card named in a payment method: '招商银行信用卡(1234)', '（1234）', '尾号1234'. */
export function cardTailOf(method: string): string | undefined {
  const m = /[(（](\d{4})[)）]|尾号\s*(\d{4})/.exec(method);
  return m ? m[1] || m[2] : undefined;
}

/** A header row found by its column names: where each known field's column is and what it is called in the file. */
export interface HeaderRow<F extends string> {
  /** Index of the header among the rows searched. */
  index: number;
  columns: Partial<Record<F, number>>;
  /** The header cell of each field as the file writes it (for messages). */
  names: Partial<Record<F, string>>;
  /** Cells up to the last non-empty header cell. */
  width: number;
  /** The index of the last column a field is read from. */
  lastColumn: number;
  /** The header ends with a delimiter (an empty last cell), so complete rows do too. */
  trailingDelimiter: boolean;
}

/** A header cell compared by name: without spaces (exports pad them), full-width parentheses made ASCII ('金额（元）' → '金额(元)'). */
export function headerKey(cell: string): string {
  return cell.replace(/[\s\u3000]+/g, '').replace(/[（）]/g, (paren) => (paren === '（' ? '(' : ')'));
}

/**
 * The row among the first `scan` naming the most known columns (at least `minimum`), for exports
 * whose header row sits under a block of titles, totals and notes that changes between versions.
 * `fields` maps header names (as `headerKey` gives them) to fields; the first column of a field wins.
 */
export function findHeaderRow<F extends string>(rows: readonly { cells: readonly string[] }[], fields: Readonly<Record<string, F>>, minimum = 2, scan = 100): HeaderRow<F> | null {
  let best: HeaderRow<F> | null = null;
  let bestCount = minimum - 1;
  for (const [r, { cells }] of rows.slice(0, scan).entries()) {
    const columns: Partial<Record<F, number>> = {};
    const names: Partial<Record<F, string>> = {};
    let count = 0;
    let width = 0;
    let lastColumn = 0;
    cells.forEach((cell, index) => {
      const key = headerKey(cell);
      if (key !== '') width = index + 1;
      const field = Object.hasOwn(fields, key) ? fields[key] : undefined;
      if (field !== undefined && columns[field] === undefined) {
        columns[field] = index;
        names[field] = cell.trim();
        lastColumn = index;
        count++;
      }
    });
    if (count > bestCount) {
      bestCount = count;
      best = { index: r, columns, names, width, lastColumn, trailingDelimiter: cells.length > width };
    }
  }
  return best;
}

/** True for a file with nothing in it but a BOM, white space and delimiters. */
export function isBlankFile(bytes: Buffer): boolean {
  const body = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  return body.every((byte) => byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d || byte === 0x2c || byte === 0x3b);
}

/**
 * The text of a Chinese payment app's export, or a StatementError that tells a garbled re-save
 * ('encoding') from a file of another kind ('notThisFormat'). `expected` is a word the right
 * decoding shows; the messages name the app.
 */
export function decodeChineseExport(bytes: Buffer, expected: RegExp, messages: { garbled: string; notThisFormat: string }): string {
  const source = withoutCutUtf8Tail(bytes);
  try {
    return decodeText(source, expected);
  } catch (error) {
    if (!(error instanceof StatementError) || error.kind !== 'encoding') throw error;
    const loose = decodeText(source);
    if (!loose.includes('\u0000') && looksMisdecoded(loose)) throw new StatementError('encoding', messages.garbled);
    throw new StatementError('notThisFormat', messages.notThisFormat);
  }
}

/**
 * What a data row of a bill export is before its cells are read: the summary after the rows
 * (`trailer` matches its first cell: `end`), an empty row (`blank`), a row cut off or without a
 * column that is read (an invalid line saying so), or a row to read (null).
 */
export function rowShape(record: CsvRecord, header: HeaderRow<string>, trailer: RegExp): 'end' | 'blank' | InvalidLine | null {
  const { line, cells, unterminated, unfinished } = record;
  const first = cleanCell(cells[0]);
  if (trailer.test(first)) return 'end';
  if (first === '' && cells.every((c) => cleanCell(c) === '')) return 'blank';
  const cutOff = unfinished && header.trailingDelimiter && cells.length === header.width;
  // A complete row (it ends with a line break) may lack cells after the last column read: WeChat's
  // header ends with a second `备注` that many rows do not fill. A row without its line break
  // (the file's last) that is short may be cut off: it is not read.
  const short = cells.length < header.width && (unfinished || cells.length <= header.lastColumn);
  if (unterminated || short || cutOff) {
    return { line, kind: 'badRow', reason: `The row has ${cells.length} of the ${header.width} columns of the header (the file may be cut off here, or the row was edited).` };
  }
  return null;
}
