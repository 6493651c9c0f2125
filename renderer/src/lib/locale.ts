import 'dayjs/locale/zh-cn';
import type { Language } from '../i18n';

/**
 * The base currency the server gives a new account of this language until it has one of its own
 * (server/lib/languages.ts): what the screens assume while theirs is loading.
 */
export function languageCurrency(language: string): string {
  return language === 'zh-CN' ? 'CNY' : 'USD';
}

/**
 * How dates are written in each UI language (docs/ui.md, "Language and locale"): the format of
 * every date input, the dayjs locale of its calendar (month and weekday names) and the first day
 * of the week. Values inside the app stay `YYYY-MM-DD` strings (lib/format.ts `toDateInput`).
 */
export interface DateLocale {
  /** dayjs locale of the calendar. */
  dayjs: string;
  /** dayjs format of the text in the input. */
  format: string;
  /** What the input shows when empty. */
  placeholder: string;
  /** dayjs format of the calendar's month heading. */
  monthLabel: string;
  /** 0 Sunday … 6 Saturday. */
  firstDayOfWeek: 0 | 1;
}

export const DATE_LOCALES: Record<Language, DateLocale> = {
  en: { dayjs: 'en', format: 'MM/DD/YYYY', placeholder: 'mm/dd/yyyy', monthLabel: 'MMMM YYYY', firstDayOfWeek: 0 },
  'zh-CN': { dayjs: 'zh-cn', format: 'YYYY/MM/DD', placeholder: '年/月/日', monthLabel: 'YYYY年M月', firstDayOfWeek: 1 },
};

export function dateLocale(language: string): DateLocale {
  return language === 'zh-CN' ? DATE_LOCALES['zh-CN'] : DATE_LOCALES.en;
}

const pad = (n: number) => String(n).padStart(2, '0');

function ymd(year: number, month: number, day: number): string | null {
  const d = new Date(year, month - 1, day);
  if (year < 1000 || d.getFullYear() !== year || d.getMonth() !== month - 1 || d.getDate() !== day) return null;
  return `${year}-${pad(month)}-${pad(day)}`;
}

/**
 * A typed date as `YYYY-MM-DD`, or null while it is not a whole, real date. Every language takes
 * year-first dates (2026-11-22, 2026/11/22, 2026.11.22, 2026年11月22日); English also takes its
 * month-first form (11/22/2026).
 */
export function parseTypedDate(text: string, language: string): string | null {
  const value = text.trim();
  const yearFirst = /^(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})\s*日?$/.exec(value);
  if (yearFirst) return ymd(Number(yearFirst[1]), Number(yearFirst[2]), Number(yearFirst[3]));
  const monthFirst = language === 'zh-CN' ? null : /^(\d{1,2})\s*[/.-]\s*(\d{1,2})\s*[/.-]\s*(\d{4})$/.exec(value);
  if (monthFirst) return ymd(Number(monthFirst[3]), Number(monthFirst[1]), Number(monthFirst[2]));
  return null;
}
