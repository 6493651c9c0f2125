import { useRef } from 'react';
import { Kbd, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ApiCallError } from '../../api/client';
import { Icon } from '../../components/icons';
import { useSearchFocusTarget } from '../../lib/shortcuts';
import { usePhone } from '../../lib/use-phone';

/** The message for a search the server could not read (accounting.query `q`, details name the problem and the token). */
export function useSearchErrorText() {
  const { t } = useTranslation();
  return (error: ApiCallError | null): string | null => {
    if (!error) return null;
    const data = error.data as { problem?: unknown; token?: unknown } | null;
    const problem = typeof data?.problem === 'string' ? data.problem : 'other';
    const known = ['unclosedQuote', 'needsValue', 'notAmountOrDate', 'notADate', 'mixedRange', 'emptyRange', 'tooManyTerms'].includes(problem);
    return t(`search.problem.${known ? problem : 'other'}` as 'search.problem.other', { token: typeof data?.token === 'string' ? data.token : '' });
  };
}

/** The one search box of the Records screen (`/` focuses it from anywhere; Esc clears it, then leaves it). */
export function SearchBox({ value, onChange, error }: { value: string; onChange: (value: string) => void; error: ApiCallError | null }) {
  const { t } = useTranslation();
  const ref = useRef<HTMLInputElement>(null);
  useSearchFocusTarget(ref);
  const errorText = useSearchErrorText()(error);
  // A phone has no "/" key to press: the keyboard hints (and the two lines of syntax under the box) are for a desktop.
  const phone = usePhone();
  return (
    <div role="search" className="pp-search">
      <TextInput
        ref={ref}
        type="search"
        aria-label={t('search.label')}
        placeholder={t('search.placeholder')}
        leftSection={<Icon name="search" size={16} />}
        rightSection={value || phone ? undefined : <Kbd size="xs">/</Kbd>}
        value={value}
        onChange={(e) => onChange(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key !== 'Escape') return;
          if (value) onChange('');
          else e.currentTarget.blur();
        }}
        error={errorText}
        description={phone ? undefined : t('search.hint')}
        data-testid="record-search"
      />
    </div>
  );
}
