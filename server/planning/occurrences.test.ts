import { describe, expect, it } from 'vitest';
import { lastOccurrenceBy, localDate, nextOccurrence, occurrenceOn, occurrences, zonedInstant, type RecurrenceSpec } from './occurrences';

const spec = (over: Partial<RecurrenceSpec> & { start: string; timeZone?: string }): RecurrenceSpec => {
  const tz = over.timeZone ?? 'UTC';
  const [d = '', t = '09:00:00'] = over.start.split('T');
  const [y, m, day] = d.split('-').map(Number);
  const [h, mi, s = 0] = t.split(':').map(Number);
  if (y === undefined || m === undefined || day === undefined || h === undefined || mi === undefined) throw new Error(`spec: start "${over.start}" is not YYYY-MM-DD[THH:mm[:ss]]`);
  return { freq: 'daily', interval: 1, byMonthDay: 0, byWeekday: [], endDate: 0, ...over, timeZone: tz, startDate: zonedInstant(y, m, day, h, mi, s, tz) };
};
const dates = (s: RecurrenceSpec, limit: number) => occurrences(s, { limit }).map((o) => o.date);
const iso = (ms: number) => new Date(ms).toISOString();

describe('occurrence dates', () => {
  it('daily and every 3 days', () => {
    expect(dates(spec({ start: '2024-02-27' }), 4)).toEqual(['2024-02-27', '2024-02-28', '2024-02-29', '2024-03-01']);
    expect(dates(spec({ start: '2023-12-30', interval: 3 }), 3)).toEqual(['2023-12-30', '2024-01-02', '2024-01-05']);
  });

  it('monthly on the 31st falls on the last day of short months', () => {
    const s = spec({ start: '2024-01-31', freq: 'monthly' });
    expect(dates(s, 5)).toEqual(['2024-01-31', '2024-02-29', '2024-03-31', '2024-04-30', '2024-05-31']);
    const s2 = spec({ start: '2023-01-15', freq: 'monthly', byMonthDay: 30 });
    expect(dates(s2, 3)).toEqual(['2023-01-30', '2023-02-28', '2023-03-30']);
  });

  it('monthly −1 is the last day; byMonthDay before the start day begins next month', () => {
    expect(dates(spec({ start: '2023-01-05', freq: 'monthly', byMonthDay: -1 }), 3)).toEqual(['2023-01-31', '2023-02-28', '2023-03-31']);
    expect(dates(spec({ start: '2024-01-20', freq: 'monthly', byMonthDay: 10, interval: 2 }), 3)).toEqual(['2024-03-10', '2024-05-10', '2024-07-10']);
  });

  it('yearly on February 29 falls on February 28 in other years', () => {
    expect(dates(spec({ start: '2024-02-29', freq: 'yearly' }), 5)).toEqual(['2024-02-29', '2025-02-28', '2026-02-28', '2027-02-28', '2028-02-29']);
  });

  it('weekly on several days, every other week, weeks starting Monday', () => {
    // 2024-01-03 is a Wednesday; its week starts Monday 2024-01-01.
    const s = spec({ start: '2024-01-03', freq: 'weekly', interval: 2, byWeekday: ['MO', 'WE', 'SU'] });
    expect(dates(s, 6)).toEqual(['2024-01-03', '2024-01-07', '2024-01-15', '2024-01-17', '2024-01-21', '2024-01-29']);
    expect(dates(spec({ start: '2024-01-03', freq: 'weekly' }), 2)).toEqual(['2024-01-03', '2024-01-10']);
  });

  it('stops at endDate and finds occurrences by date', () => {
    const s = spec({ start: '2024-01-01', freq: 'monthly' });
    s.endDate = zonedInstant(2024, 3, 1, 9, 0, 0, 'UTC');
    expect(dates(s, 10)).toEqual(['2024-01-01', '2024-02-01', '2024-03-01']);
    expect(nextOccurrence(s, '2024-03-01')).toBeNull();
    expect(nextOccurrence(s, '2024-01-01')?.date).toBe('2024-02-01');
    expect(occurrenceOn(s, '2024-02-01')?.date).toBe('2024-02-01');
    expect(occurrenceOn(s, '2024-02-02')).toBeNull();
    expect(occurrenceOn(s, '2024-02-30')).toBeNull();
    expect(lastOccurrenceBy(s, zonedInstant(2024, 2, 15, 0, 0, 0, 'UTC'))?.date).toBe('2024-02-01');
  });

  it('jumps straight to a far date without walking from the start', () => {
    const s = spec({ start: '2000-01-01', freq: 'daily', interval: 7 });
    const t0 = performance.now();
    expect(occurrences(s, { fromDate: '2026-05-01', limit: 1 })[0]?.date).toBe('2026-05-02');
    expect(performance.now() - t0).toBeLessThan(50);
  });
});

describe('time zones and daylight saving', () => {
  it('keeps the local time of day across zones', () => {
    const sh = spec({ start: '2024-03-01T08:00', freq: 'monthly', timeZone: 'Asia/Shanghai' });
    expect(occurrences(sh, { limit: 2 }).map((o) => iso(o.at))).toEqual(['2024-03-01T00:00:00.000Z', '2024-04-01T00:00:00.000Z']);
    const berlin = spec({ start: '2024-03-30T09:00', timeZone: 'Europe/Berlin' });
    // Winter UTC+1, summer UTC+2 after 2024-03-31.
    expect(occurrences(berlin, { limit: 2 }).map((o) => iso(o.at))).toEqual(['2024-03-30T08:00:00.000Z', '2024-03-31T07:00:00.000Z']);
  });

  it('a 02:30 time on a spring-forward day moves to 03:30 (New York)', () => {
    const ny = spec({ start: '2024-03-09T02:30', timeZone: 'America/New_York' });
    const [a, b, c] = occurrences(ny, { limit: 3 });
    if (!a || !b || !c) throw new Error('expected 3 occurrences');
    expect(b.date).toBe('2024-03-10');
    expect(iso(a.at)).toBe('2024-03-09T07:30:00.000Z');
    expect(iso(b.at)).toBe('2024-03-10T07:30:00.000Z'); // 03:30 EDT
    expect(iso(c.at)).toBe('2024-03-11T06:30:00.000Z'); // 02:30 EDT
    expect(localDate(b.at, 'America/New_York')).toBe('2024-03-10');
  });

  it('a 01:30 time on a fall-back day is the first of the two (New York)', () => {
    const ny = spec({ start: '2024-11-02T01:30', timeZone: 'America/New_York' });
    expect(iso(occurrences(ny, { limit: 2 })[1]!.at)).toBe('2024-11-03T05:30:00.000Z'); // 01:30 EDT, not EST
  });

  it('Lord Howe moves its clocks by half an hour', () => {
    // 2024-10-06 02:00 → 02:30 local; 02:15 does not exist and moves to 02:45.
    const lh = spec({ start: '2024-10-05T02:15', timeZone: 'Australia/Lord_Howe' });
    const [, b] = occurrences(lh, { limit: 2 });
    if (!b) throw new Error('expected 2 occurrences');
    expect(b.date).toBe('2024-10-06');
    expect(iso(b.at)).toBe('2024-10-05T15:45:00.000Z'); // 02:45 at UTC+11
  });

  it('dates are counted in the rule’s zone (late evening in Shanghai is the same UTC day before)', () => {
    const s = spec({ start: '2024-01-31T23:30', freq: 'monthly', timeZone: 'Asia/Shanghai' });
    const [, feb] = occurrences(s, { limit: 2 });
    if (!feb) throw new Error('expected 2 occurrences');
    expect(feb.date).toBe('2024-02-29');
    expect(iso(feb.at)).toBe('2024-02-29T15:30:00.000Z');
  });

  it('never runs past the end of 2200, nor spins on dates JavaScript cannot hold', () => {
    const at = (startDate: number, freq: RecurrenceSpec['freq']): RecurrenceSpec => ({ freq, interval: 1, byMonthDay: 0, byWeekday: [], startDate, endDate: 0, timeZone: 'UTC' });
    for (const freq of ['daily', 'weekly', 'monthly', 'yearly'] as const) {
      expect(nextOccurrence(at(8.64e15, freq), ''), freq).toBeNull();
      expect(nextOccurrence(at(8.64e15 - 3_600_000, freq), ''), freq).toBeNull();
      const last = occurrences(at(Date.UTC(2200, 11, 1, 9), freq), { limit: 1000 });
      expect(last.at(-1)!.date <= '2200-12-31', freq).toBe(true);
    }
  });
});
