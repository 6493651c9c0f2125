import { DateInput } from '@mantine/dates';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { dateLocale, parseTypedDate } from '../lib/locale';

export interface DateFieldProps {
  label: ReactNode;
  /** `YYYY-MM-DD`, or '' for none. */
  value: string;
  onChange: (value: string) => void;
  required?: boolean;
  /** An optional date (a filter's bound): can be cleared. */
  clearable?: boolean;
  error?: ReactNode;
  description?: ReactNode;
  size?: 'xs' | 'sm' | 'md';
  w?: number | string;
}

/**
 * Every date input of the app (docs/ui.md, "Language and locale"): written and read in the UI
 * language's format (2026/11/22 in Chinese, 11/22/2026 in English; year-first always works), with
 * a calendar in that language. The value stays `YYYY-MM-DD`, as the native date input gave it.
 */
export function DateField({ label, value, onChange, required, clearable, error, description, size, w }: DateFieldProps) {
  const { t, i18n } = useTranslation();
  const locale = dateLocale(i18n.language);
  return (
    <DateInput
      label={label}
      value={value || null}
      onChange={(next) => onChange(next ?? '')}
      valueFormat={locale.format}
      dateParser={(text) => parseTypedDate(text, i18n.language)}
      placeholder={locale.placeholder}
      monthLabelFormat={locale.monthLabel}
      required={required}
      clearable={clearable}
      clearButtonProps={{ 'aria-label': t('locale.dates.clear') }}
      error={error}
      description={description}
      size={size}
      w={w}
      popoverProps={{ withinPortal: true }}
      ariaLabels={{
        previousMonth: t('locale.dates.previousMonth'),
        nextMonth: t('locale.dates.nextMonth'),
        previousYear: t('locale.dates.previousYear'),
        nextYear: t('locale.dates.nextYear'),
        previousDecade: t('locale.dates.previousDecade'),
        nextDecade: t('locale.dates.nextDecade'),
        monthLevelControl: t('locale.dates.chooseMonth'),
        yearLevelControl: t('locale.dates.chooseYear'),
      }}
    />
  );
}
