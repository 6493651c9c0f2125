import { DatesProvider } from '@mantine/dates';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { dateLocale } from '../lib/locale';

/**
 * Mantine's date inputs in the UI language: calendar names, first weekday (main.tsx wraps the app
 * in it). A file of its own so that the inputs themselves (DateField) stay out of the start bundle.
 */
export function LocaleDates({ children }: { children: ReactNode }) {
  const { i18n } = useTranslation();
  const locale = dateLocale(i18n.language);
  return <DatesProvider settings={{ locale: locale.dayjs, firstDayOfWeek: locale.firstDayOfWeek }}>{children}</DatesProvider>;
}
