import { describe, expect, it } from 'vitest';
import { crossCurrencyText, moneyWithCode } from './transfer';

describe('crossCurrencyText', () => {
  it('shows both amounts of a transfer across currencies with their codes and decimals', () => {
    expect(crossCurrencyText('en', { amount: 100, currency: 'USD', toAmount: 710, toCurrency: 'CNY' })).toBe('−100.00 USD → +710.00 CNY');
    expect(crossCurrencyText('zh-CN', { amount: 12345.6, currency: 'USD', toAmount: 1850000, toCurrency: 'JPY' })).toBe('−12,345.60 USD → +1,850,000 JPY');
    expect(moneyWithCode('en', 1.5, 'KWD')).toBe('1.500 KWD');
  });

  it('is null for a transfer within one currency and for other records', () => {
    expect(crossCurrencyText('en', { amount: 100, currency: 'USD', toAmount: 100, toCurrency: 'USD' })).toBeNull();
    expect(crossCurrencyText('en', { amount: 100, currency: 'USD' })).toBeNull();
  });
});
