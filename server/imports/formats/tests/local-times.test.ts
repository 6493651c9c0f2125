import { describe, expect, it } from 'vitest';
import { parseCsvDate } from '../csv-dates';
import { localDateTime, localDateTimeParser, parseLocalDateTime } from '../shared';

/**
 * Wall-clock times of statements (no zone in the file) in the import's time zone, also on the days
 * a DST change makes 23 or 25 hours long: adding the hours to local midnight is an hour off there.
 */
describe('local date-times of statement lines', () => {
  const cases: Array<[string, string, number]> = [
    ['2024-03-10 18:21:04', 'America/New_York', Date.UTC(2024, 2, 10, 22, 21, 4)], // after spring-forward: EDT
    ['2024-03-10 01:30:00', 'America/New_York', Date.UTC(2024, 2, 10, 6, 30)], // before it: EST
    ['2024-03-10 02:30:00', 'America/New_York', Date.UTC(2024, 2, 10, 7, 30)], // in the gap: moved forward
    ['2024-11-03 01:30:00', 'America/New_York', Date.UTC(2024, 10, 3, 5, 30)], // twice: the first
    ['2024-11-03 12:00:00', 'America/New_York', Date.UTC(2024, 10, 3, 17)], // after fall-back: EST
    ['2024-10-27 12:00:00', 'Europe/Berlin', Date.UTC(2024, 9, 27, 11)],
    ['2026-11-27 12:30:00', 'Asia/Shanghai', Date.UTC(2026, 10, 27, 4, 30)],
    ['2026-11-27', 'Asia/Shanghai', Date.UTC(2026, 10, 26, 16)],
  ];
  it.each(cases)('%s in %s', (text, zone, expected) => {
    expect(parseLocalDateTime(text, zone)).toBe(expected);
    expect(localDateTimeParser(zone)(text)).toBe(expected);
  });

  it('reads a mapped CSV date on a DST-change day right (its own day cache made it an hour off)', () => {
    expect(parseCsvDate('03/10/2024 18:21:04', 'MM/DD/YYYY', 'America/New_York')).toBe(Date.UTC(2024, 2, 10, 22, 21, 4));
    expect(parseCsvDate('10.03.2024 01:30', 'DD.MM.YYYY', 'America/New_York')).toBe(Date.UTC(2024, 2, 10, 6, 30));
  });

  it('refuses impossible dates', () => {
    expect(localDateTime(2026, 2, 30, 'UTC')).toBeNull();
    expect(localDateTime(2026, 13, 1, 'UTC')).toBeNull();
    expect(localDateTime(2026, 1, 1, 'UTC', 24)).toBeNull();
  });
});
