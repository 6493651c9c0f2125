import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { currencyDecimals, inRange, isCurrencyCode, limitText, MAX_MINOR, MinorSum, toMajor, toMinor } from './money';

describe('money', () => {
  it('knows the decimals of currencies', () => {
    expect(currencyDecimals('USD')).toBe(2);
    expect(currencyDecimals('JPY')).toBe(0);
    expect(currencyDecimals('KWD')).toBe(3);
    expect(currencyDecimals('CNY')).toBe(2);
    expect(isCurrencyCode('EUR')).toBe(true);
    expect(isCurrencyCode('eur')).toBe(false);
    expect(isCurrencyCode('ZZZ1')).toBe(false);
  });

  it('converts exactly in both directions', () => {
    expect(toMinor(12.34, 'USD')).toBe(1234);
    expect(toMinor(0.1, 'USD') + toMinor(0.2, 'USD')).toBe(30);
    expect(toMinor(1.005, 'KWD')).toBe(1005);
    expect(toMinor(1000, 'JPY')).toBe(1000);
    expect(toMinor(-5.5, 'EUR')).toBe(-550);
    expect(toMinor(0.29, 'USD')).toBe(29);
    expect(toMinor(1e-7 * 1e7, 'USD')).toBe(100);
    expect(toMajor(1234, 'USD')).toBe(12.34);
    expect(toMajor(30, 'USD')).toBe(0.3);
    expect(toMajor(-5, 'USD')).toBe(-0.05);
    expect(toMajor(1005, 'KWD')).toBe(1.005);
    expect(toMajor(7, 'JPY')).toBe(7);
    for (const n of [0, 1, 9, 10, 99, 100, 123456789, 999999999999999]) expect(toMinor(toMajor(n, 'USD'), 'USD')).toBe(n);
  });

  it('refuses too many decimals, non-finite and huge amounts', () => {
    expect(() => toMinor(1.234, 'USD')).toThrow(/more decimals than USD allows \(2\)/);
    expect(() => toMinor(1.5, 'JPY')).toThrow(/JPY allows \(0\)/);
    expect(() => toMinor(1.0005, 'KWD')).toThrow(/KWD/);
    expect(() => toMinor(Number.NaN, 'USD')).toThrow(/finite/);
    expect(() => toMinor(1e300, 'USD')).toThrow(/too large/);
    expect(() => toMinor(1e-7, 'USD')).toThrow(/decimals/);
  });

  it('names the exact range per number of decimals', () => {
    expect(limitText('JPY')).toBe('1,000,000,000,000,000');
    expect(limitText('USD')).toBe('10,000,000,000,000.00');
    expect(limitText('KWD')).toBe('1,000,000,000,000.000');
    expect(limitText('CLF')).toBe('100,000,000,000.0000');
    expect(() => toMinor(10_000_000_000_000.01, 'USD')).toThrow(/10,000,000,000,000\.00 USD/);
    expect(toMinor(10_000_000_000_000, 'USD')).toBe(MAX_MINOR);
  });

  it('keeps every value of the range exact through a JSON number, for 0 to 4 decimals', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -BigInt(MAX_MINOR), max: BigInt(MAX_MINOR) }), fc.constantFrom('JPY', 'USD', 'KWD', 'CLF'), (minor, currency) => {
        const major = JSON.parse(JSON.stringify(toMajor(minor, currency))) as number;
        expect(BigInt(toMinor(major, currency))).toBe(minor);
      }),
      { numRuns: 2000, seed: 15 },
    );
  });

  it('MinorSum equals a BigInt sum whatever the terms', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer({ min: -MAX_MINOR, max: MAX_MINOR }), fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n })), { maxLength: 60 }), (terms) => {
        const sum = new MinorSum();
        let exact = 0n;
        for (const term of terms) {
          sum.add(term);
          exact += BigInt(term);
        }
        expect(sum.value).toBe(exact);
        expect(inRange(sum.value)).toBe(exact <= BigInt(MAX_MINOR) && exact >= -BigInt(MAX_MINOR));
      }),
      { numRuns: 500, seed: 15 },
    );
  });
});
