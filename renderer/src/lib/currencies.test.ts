import { describe, expect, it } from 'vitest';
import { currencyName, searchCurrencies } from './currencies';

describe('searchCurrencies', () => {
  it('finds codes by code, by English and by Chinese name, best match first', () => {
    expect(searchCurrencies('CN')[0]).toBe('CNY');
    expect(searchCurrencies('cny')).toEqual(['CNY']);
    expect(searchCurrencies('ＣＮＹ')).toEqual(['CNY']);
    expect(searchCurrencies('yuan')).toContain('CNY');
    expect(searchCurrencies('人民币')).toEqual(['CNY']);
    expect(searchCurrencies('日元')).toContain('JPY');
    expect(searchCurrencies('dollar').slice(0, 3)).toContain('USD');
    expect(searchCurrencies('euro')[0]).toBe('EUR');
  });

  it('answers nothing for what matches no currency, everything for an empty query', () => {
    expect(searchCurrencies('USDCN')).toEqual([]);
    expect(searchCurrencies('zzzz')).toEqual([]);
    expect(searchCurrencies('  ').length).toBeGreaterThan(100);
  });

  it('names currencies in both languages', () => {
    expect(currencyName('CNY', 'en')).toBe('Chinese Yuan');
    expect(currencyName('CNY', 'zh-CN')).toBe('人民币');
    expect(currencyName('USD', 'zh-CN')).toBe('美元');
  });
});
