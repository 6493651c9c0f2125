import { startOfMonth, startOfYear } from '../../lib/format';

/** The ranges the statistics screen offers (a preset or custom), and how it groups a range. */
export type Preset = 'thisMonth' | 'last3Months' | 'last12Months' | 'thisYear' | 'lastYear' | 'custom';
export type GroupBy = 'day' | 'week' | 'month' | 'year';

export function presetRange(preset: Preset, now: number): { start: number; end: number } {
  switch (preset) {
    case 'thisMonth':
      return { start: startOfMonth(now), end: startOfMonth(now, 1) };
    case 'last3Months':
      return { start: startOfMonth(now, -2), end: startOfMonth(now, 1) };
    case 'last12Months':
      return { start: startOfMonth(now, -11), end: startOfMonth(now, 1) };
    case 'thisYear':
      return { start: startOfYear(now), end: startOfYear(now, 1) };
    case 'lastYear':
      return { start: startOfYear(now, -1), end: startOfYear(now) };
    default:
      return { start: startOfMonth(now), end: startOfMonth(now, 1) };
  }
}

export function defaultGroup(start: number, end: number): GroupBy {
  const days = (end - start) / 86_400_000;
  if (days <= 45) return 'day';
  if (days <= 120) return 'week';
  if (days <= 1100) return 'month';
  return 'year';
}
