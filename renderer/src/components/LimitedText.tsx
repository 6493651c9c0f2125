import type { ReactNode } from 'react';
import { Textarea, TextInput, type TextareaProps, type TextInputProps } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useFormat } from '../lib/format';
import { textLength } from '../api/param-limits';

/**
 * Text fields with the server's character limit (docs/ui.md, "Text limits"). Nothing is ever cut:
 * there is no `maxLength` attribute (the browser would drop typed or pasted characters without a
 * word). From 80 % of the limit a counter shows under the field; beyond it the field says how
 * much is too long, and the form refuses to send (`tooLong`, `focusFirstInvalid`).
 */
interface Limited {
  max: number;
  value: string;
  onChange: (value: string) => void;
  /** An error from the server about this field, shown when the field has none of its own. */
  error?: ReactNode;
}

/** True when `text` is over `max` characters (as the server counts them). */
export function tooLong(text: string, max: number): boolean {
  return textLength(text) > max;
}

/** Focuses the first field of `form` marked invalid (a submit that was refused); true if there was one. */
export function focusFirstInvalid(form: Element | null): boolean {
  const field = form?.querySelector<HTMLElement>('[aria-invalid="true"]');
  field?.focus();
  return !!field;
}

function useLimit(value: string, max: number, error: ReactNode, description: ReactNode) {
  const { t } = useTranslation();
  const f = useFormat();
  const length = textLength(value);
  const near = length >= Math.floor(max * 0.8);
  const over = length > max;
  const counter = near ? (
    <span className={`pp-text-counter${over ? ' pp-text-counter-over' : ''}`} aria-label={t('textLimit.counterLabel', { length: f.number(length), max: f.number(max) })}>
      {t('textLimit.counter', { length: f.number(length), max: f.number(max) })}
    </span>
  ) : null;
  return {
    error: over ? t('textLimit.tooLong', { length: f.number(length), max: f.number(max), over: f.number(length - max) }) : error,
    description:
      description && counter ? (
        <>
          {description} {counter}
        </>
      ) : (
        (description ?? counter)
      ),
  };
}

export function LimitedTextInput({ max, value, onChange, error, description, ...rest }: Omit<TextInputProps, 'value' | 'onChange' | 'maxLength' | 'error'> & Limited) {
  const limit = useLimit(value, max, error, description);
  return (
    <TextInput
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
      error={limit.error}
      description={limit.description}
      inputWrapperOrder={['label', 'input', 'description', 'error']}
      {...rest}
    />
  );
}

export function LimitedTextarea({ max, value, onChange, error, description, ...rest }: Omit<TextareaProps, 'value' | 'onChange' | 'maxLength' | 'error'> & Limited) {
  const limit = useLimit(value, max, error, description);
  return (
    <Textarea
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
      error={limit.error}
      description={limit.description}
      inputWrapperOrder={['label', 'input', 'description', 'error']}
      {...rest}
    />
  );
}
