import { describe, expect, it } from 'vitest';
import { maxAmountText, parseNumber, type NumberRule } from './parse-number';

const usd: NumberRule = { kind: 'money', currency: 'USD', decimals: 2, sign: 'positive' };
const jpy: NumberRule = { kind: 'money', currency: 'JPY', decimals: 0, sign: 'positive' };
const kwd: NumberRule = { kind: 'money', currency: 'KWD', decimals: 3, sign: 'positive' };
const shares: NumberRule = { kind: 'whole', min: 1, max: 1_000_000 };
const rate: NumberRule = { kind: 'rate' };

const value = (text: string, rule: NumberRule) => {
  const parsed = parseNumber(text, rule);
  return parsed.ok ? parsed.value : parsed.problem.kind;
};

describe('amounts as people type them', () => {
  it('reads plain, grouped, half-typed and full-width numbers exactly', () => {
    expect(value('1,234.56', usd)).toBe(1234.56);
    expect(value('1,234.5', usd)).toBe(1234.5);
    expect(value('1234.56', usd)).toBe(1234.56);
    expect(value(' 12.50 ', usd)).toBe(12.5);
    expect(value('1,234,567', usd)).toBe(1234567);
    expect(value('.5', usd)).toBe(0.5);
    expect(value('5.', usd)).toBe(5);
    expect(value('007', usd)).toBe(7);
    expect(value('１，２３４．５', usd)).toBe(1234.5);
    expect(value('0.01', usd)).toBe(0.01);
  });

  it('refuses what is not a number instead of guessing', () => {
    for (const text of ['1e5', '12abc', 'abc', '1.2.3', '1,23', '12,34,567', '1234,567', ',123', '0,123', '1 000', '+5', '-', '.', '0x10', 'Infinity', 'NaN', '1_000', '5,']) {
      expect(value(text, usd), text).toBe('format');
    }
  });

  it('refuses more decimals than the currency has (USD 2, JPY 0, KWD 3)', () => {
    expect(parseNumber('1.999', usd)).toEqual({ ok: false, problem: { kind: 'decimals', currency: 'USD', decimals: 2 } });
    expect(value('1.990', usd)).toBe('decimals');
    expect(value('100.5', jpy)).toBe('decimals');
    expect(value('100', jpy)).toBe(100);
    expect(value('1.999', kwd)).toBe(1.999);
    expect(value('1.9999', kwd)).toBe('decimals');
  });

  it("refuses amounts beyond the server's exact range (10^15 minor units), naming the limit", () => {
    expect(maxAmountText(2)).toBe('10,000,000,000,000.00');
    expect(maxAmountText(0)).toBe('1,000,000,000,000,000');
    expect(maxAmountText(3)).toBe('1,000,000,000,000.000');
    expect(parseNumber('9'.repeat(23), usd)).toEqual({ ok: false, problem: { kind: 'tooLarge', max: '10,000,000,000,000.00' } });
    expect(value('10,000,000,000,000.01', usd)).toBe('tooLarge');
    expect(value('1000000000000001', jpy)).toBe('tooLarge');
    expect(value('1,000,000,000,000.001', kwd)).toBe('tooLarge');
    expect(value('-10,000,000,000,000.01', { ...usd, sign: 'any' })).toBe('tooLarge');
    // the limit itself and the amounts just below it are read exactly
    expect(value('10,000,000,000,000.00', usd)).toBe(1e13);
    expect(value('9,999,999,999,999.99', usd)).toBe(9999999999999.99);
    expect(value('1,000,000,000,000,000', jpy)).toBe(1e15);
    expect(value('999,999,999,999.999', kwd)).toBe(999999999999.999);
  });

  it('applies the sign rule of the field', () => {
    expect(value('-5', usd)).toBe('negative');
    expect(value('0', usd)).toBe('zero');
    expect(value('0.00', usd)).toBe('zero');
    expect(value('0', { ...usd, sign: 'nonNegative' })).toBe(0);
    expect(value('-1,234.5', { ...usd, sign: 'any' })).toBe(-1234.5);
    expect(value('−12', { ...usd, sign: 'any' })).toBe(-12);
    expect(value('-0', { ...usd, sign: 'any' })).toBe(0);
  });

  it('tells an empty required field from an empty optional one', () => {
    expect(value('', usd)).toBe('required');
    expect(value('  ', usd)).toBe('required');
    expect(parseNumber('', { ...usd, optional: true })).toEqual({ ok: true, value: null, text: '' });
  });
});

describe('whole numbers (shares)', () => {
  it('takes positive whole numbers within the range only', () => {
    expect(value('3', shares)).toBe(3);
    expect(value('1,000', shares)).toBe(1000);
    expect(value('1,000,000', shares)).toBe(1_000_000);
    for (const text of ['-5', '2.5', '2.0', '0', '1,000,001', '1e3', '12abc', '', '3.']) expect(value(text, shares), text).toBe('whole');
  });
});

describe('exchange rates', () => {
  it('takes a positive decimal with up to 12 digits either side, as exact text', () => {
    expect(parseNumber('7.1234', rate)).toEqual({ ok: true, value: 7.1234, text: '7.1234' });
    expect(parseNumber('1,234.123456789012', rate)).toEqual({ ok: true, value: 1234.123456789012, text: '1234.123456789012' });
    expect(parseNumber('0.000000000001', rate)).toMatchObject({ ok: true, text: '0.000000000001' });
    expect(parseNumber('.5', rate)).toMatchObject({ ok: true, text: '0.5' });
    for (const text of ['0', '0.000', '-1', '1e5', '12abc', '0.0000000000001', '1234567890123', '']) expect(value(text, rate), text).toBe('rate');
  });
});
