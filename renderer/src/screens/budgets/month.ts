/** Months as the budget actions name them: 'YYYY-MM', in the person's own time zone. */

export function monthOf(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}`;
}

/** 'YYYY-MM' → its year and month number (1–12); a month these helpers did not make is an internal error. */
function partsOf(month: string): { year: number; m: number } {
  const [yearText, monthText, ...rest] = month.split('-');
  const year = Number(yearText);
  const m = Number(monthText);
  if (!yearText || !monthText || rest.length > 0 || !Number.isInteger(year) || !Number.isInteger(m) || m < 1 || m > 12) {
    throw new Error(`budgets/month: '${month}' is not a 'YYYY-MM' month.`);
  }
  return { year, m };
}

/** `month` moved by `delta` months. */
export function shiftMonth(month: string, delta: number): string {
  const { year, m } = partsOf(month);
  const index = year * 12 + (m - 1) + delta;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
}

/** Local midnight of the month's first day (for formatting its name). */
export function monthStartMs(month: string): number {
  const { year, m } = partsOf(month);
  return new Date(year, m - 1, 1).getTime();
}
