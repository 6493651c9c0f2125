/** Months as the budget actions name them: 'YYYY-MM', in the person's own time zone. */

export function monthOf(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}`;
}

/** `month` moved by `delta` months. */
export function shiftMonth(month: string, delta: number): string {
  const [year, m] = month.split('-').map(Number);
  const index = year * 12 + (m - 1) + delta;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
}

/** Local midnight of the month's first day (for formatting its name). */
export function monthStartMs(month: string): number {
  const [year, m] = month.split('-').map(Number);
  return new Date(year, m - 1, 1).getTime();
}
