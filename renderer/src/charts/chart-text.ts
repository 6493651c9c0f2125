import type { useFormat } from '../lib/format';

type Fmt = ReturnType<typeof useFormat>;

/**
 * What every money chart says (issue 36, finding 15): amounts with their currency in the tooltip
 * and on the value axis (compact: "CN¥12K"), and a month axis that names every month — the
 * current one included — in its short form ("Nov", "11月"), the year where it starts.
 */
export function moneyTooltip(f: Fmt, currency: string) {
  return { valueFormatter: (value: unknown) => (typeof value === 'number' ? f.money(value, currency) : String(value)) };
}

export function moneyAxis(f: Fmt, currency: string) {
  return { type: 'value', axisLabel: { formatter: (value: number) => f.money(value, currency, { compact: true }) } };
}

/** Month labels for a series of month starts: "Jan 2026" at January and at the first, "Feb", "Mar"… after. */
export function monthLabels(f: Fmt, starts: readonly number[]): string[] {
  return starts.map((ms, i) => {
    const date = new Date(ms);
    return i === 0 || date.getMonth() === 0 ? f.date(ms, 'month') : new Intl.DateTimeFormat(f.locale, { month: 'short' }).format(date);
  });
}

/** A category axis that draws every label (ECharts skipped every other one, the current month among them). */
export function everyLabelAxis(labels: string[]) {
  return { type: 'category', data: labels, axisLabel: { interval: 0, hideOverlap: false, fontSize: 11 } };
}
