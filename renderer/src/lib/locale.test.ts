import { describe, expect, it } from 'vitest';
import { dateLocale, parseTypedDate } from './locale';

describe('typed dates', () => {
  it('takes year-first dates in both languages and month-first ones in English', () => {
    for (const language of ['en', 'zh-CN']) {
      expect(parseTypedDate('2026-11-22', language)).toBe('2026-11-22');
      expect(parseTypedDate('2026/1/5', language)).toBe('2026-01-05');
      expect(parseTypedDate(' 2026年11月22日 ', language)).toBe('2026-11-22');
    }
    expect(parseTypedDate('11/22/2026', 'en')).toBe('2026-11-22');
    expect(parseTypedDate('11/22/2026', 'zh-CN')).toBeNull();
  });

  it('refuses dates that do not exist or are not finished', () => {
    expect(parseTypedDate('2026-02-30', 'en')).toBeNull();
    expect(parseTypedDate('2026/11/', 'zh-CN')).toBeNull();
    expect(parseTypedDate('13/01/2026', 'en')).toBeNull();
    expect(parseTypedDate('', 'en')).toBeNull();
  });

  it('writes Chinese dates year first', () => {
    expect(dateLocale('zh-CN').format).toBe('YYYY/MM/DD');
    expect(dateLocale('en').format).toBe('MM/DD/YYYY');
  });
});
