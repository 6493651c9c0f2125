import { describe, expect, it } from 'vitest';
import { monthStartMs, shiftMonth } from './month';

describe('budget months', () => {
  it('moves a month across year ends both ways', () => {
    expect(shiftMonth('2024-12', 1)).toBe('2025-01');
    expect(shiftMonth('2025-01', -1)).toBe('2024-12');
    expect(shiftMonth('2024-06', 0)).toBe('2024-06');
    expect(shiftMonth('2024-03', -15)).toBe('2022-12');
  });

  it('starts a month at local midnight of its first day', () => {
    expect(monthStartMs('2024-02')).toBe(new Date(2024, 1, 1).getTime());
  });

  it('refuses a month it did not make instead of answering NaN-NaN', () => {
    for (const bad of ['2024', '2024-13', '2024-00', '', '-05', '2024-06-01', 'abcd-ef']) {
      expect(() => shiftMonth(bad, 1), bad).toThrow(/not a 'YYYY-MM' month/);
      expect(() => monthStartMs(bad), bad).toThrow(/not a 'YYYY-MM' month/);
    }
  });
});
