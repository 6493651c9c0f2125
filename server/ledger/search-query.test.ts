import { describe, expect, it } from 'vitest';
import { DomainError } from '../lib/errors';
import { amountBounds, dateSpan, parseSearch, type SearchTerm } from './search-query';

function refusal(q: string): { status: number; problem: unknown; field: unknown; message: string } {
  try {
    parseSearch(q);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { status: error.status, problem: error.details?.problem, field: error.details?.field, message: error.message };
  }
  throw new Error(`"${q}" was accepted`);
}

const amount = (q: string, digits = 2) => amountBounds(parseSearch(q)[0] as Extract<SearchTerm, { kind: 'amount' }>, digits);
const span = (q: string, timeZone = 'UTC') => dateSpan(parseSearch(q)[0] as Extract<SearchTerm, { kind: 'date' }>, timeZone);

describe('parseSearch', () => {
  it('reads words, phrases and qualifiers (NFKC, lower case, Chinese)', () => {
    expect(parseSearch('  Coffee  "Green Tea"  tag:Trip cat:食品 category:Food asset:Wallet 午饭 ')).toEqual([
      { kind: 'text', field: 'any', value: 'coffee' },
      { kind: 'text', field: 'any', value: 'green tea' },
      { kind: 'text', field: 'tag', value: 'trip' },
      { kind: 'text', field: 'category', value: '食品' },
      { kind: 'text', field: 'category', value: 'food' },
      { kind: 'text', field: 'asset', value: 'wallet' },
      { kind: 'text', field: 'any', value: '午饭' },
    ]);
    expect(parseSearch('')).toEqual([]);
    // full-width signs and digits (a Chinese keyboard) read as the ASCII ones
    expect(parseSearch('＞１００')).toEqual([{ kind: 'amount', lo: { value: { int: '100', frac: '' }, inclusive: false }, hi: undefined }]);
    // an unknown qualifier, a time and a quoted number are plain words
    expect(parseSearch('note:x 10:30 "100"')).toEqual([
      { kind: 'text', field: 'any', value: 'note:x' },
      { kind: 'text', field: 'any', value: '10:30' },
      { kind: 'text', field: 'any', value: '100' },
    ]);
  });

  it('reads a word named like a property every object has (constructor:x) as a plain word, not a qualifier', () => {
    expect(parseSearch('constructor:x Constructor:Set')).toEqual([
      { kind: 'text', field: 'any', value: 'constructor:x' },
      { kind: 'text', field: 'any', value: 'constructor:set' },
    ]);
  });

  it('turns amounts into inclusive bounds in minor units, exactly', () => {
    expect(amount('35.5')).toEqual([3550, 3550]);
    expect(amount('=35.5')).toEqual([3550, 3550]);
    expect(amount('>100')).toEqual([10001, Infinity]);
    expect(amount('>=100')).toEqual([10000, Infinity]);
    expect(amount('<50')).toEqual([-Infinity, 4999]);
    expect(amount('<=50')).toEqual([-Infinity, 5000]);
    expect(amount('100..200')).toEqual([10000, 20000]);
    expect(amount('100..')).toEqual([10000, Infinity]);
    expect(amount('..200')).toEqual([-Infinity, 20000]);
    // more decimals than the currency has: nothing equals it, bounds round the right way
    expect(amount('35.555')).toEqual([3556, 3555]);
    expect(amount('>35.555')).toEqual([3556, Infinity]);
    expect(amount('>=35.555')).toEqual([3556, Infinity]);
    expect(amount('<35.555')).toEqual([-Infinity, 3555]);
    expect(amount('<=35.555')).toEqual([-Infinity, 3555]);
    expect(amount('1000', 0)).toEqual([1000, 1000]);
    expect(amount('12.5', 0)).toEqual([13, 12]);
  });

  it('turns dates into spans in the time zone', () => {
    expect(span('2026-11')).toEqual([Date.UTC(2026, 10, 1), Date.UTC(2026, 11, 1)]);
    expect(span('2026-11-03')).toEqual([Date.UTC(2026, 10, 3), Date.UTC(2026, 10, 4)]);
    expect(span('2026/11/03')).toEqual([Date.UTC(2026, 10, 3), Date.UTC(2026, 10, 4)]);
    expect(span('2026-12')).toEqual([Date.UTC(2026, 11, 1), Date.UTC(2027, 0, 1)]);
    expect(span('>=2026-11-01')).toEqual([Date.UTC(2026, 10, 1), Infinity]);
    expect(span('>2026-11')).toEqual([Date.UTC(2026, 11, 1), Infinity]);
    expect(span('<2026-11')).toEqual([-Infinity, Date.UTC(2026, 10, 1)]);
    expect(span('<=2026-11-03')).toEqual([-Infinity, Date.UTC(2026, 10, 4)]);
    expect(span('2026-09..2026-11')).toEqual([Date.UTC(2026, 8, 1), Date.UTC(2026, 11, 1)]);
    expect(span('2026-11-03', 'Asia/Shanghai')).toEqual([Date.UTC(2026, 10, 2, 16), Date.UTC(2026, 10, 3, 16)]);
  });

  it('refuses malformed queries with a 400 on q that names the problem', () => {
    const cases: Array<[string, string]> = [
      ['"open phrase', 'unclosedQuote'],
      ['>', 'needsValue'],
      ['tag:', 'needsValue'],
      ['..', 'needsValue'],
      ['>abc', 'notAmountOrDate'],
      ['<=1e5', 'notAmountOrDate'],
      ['100..x', 'notAmountOrDate'],
      ['2026-13', 'notADate'],
      ['2026-02-30', 'notADate'],
      ['>2026-00-01', 'notADate'],
      ['100..2026-11', 'mixedRange'],
      ['200..100', 'emptyRange'],
      ['2026-11..2026-10', 'emptyRange'],
      [Array.from({ length: 21 }, (_, i) => `w${i}`).join(' '), 'tooManyTerms'],
    ];
    for (const [q, problem] of cases) {
      const r = refusal(q);
      expect({ q, status: r.status, problem: r.problem, field: r.field }).toEqual({ q, status: 400, problem, field: 'q' });
      expect(r.message).not.toMatch(/undefined|\[object/);
    }
  });
});
