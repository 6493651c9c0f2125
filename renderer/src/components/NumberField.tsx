import { useRef, useState, type ReactNode, type RefObject } from 'react';
import { TextInput, type TextInputProps } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useFormat } from '../lib/format';
import { parseNumber, type NumberProblem, type NumberRule, type ParsedNumber } from '../lib/parse-number';

/**
 * A number as typed: the field keeps the person's text and reads it with parseNumber. A problem is
 * shown under the field once it has been left or a submit was tried (then live while it is being
 * corrected); nothing is rounded, cut or clamped. See docs/ui.md, "Entering numbers".
 */
export interface NumberFieldState {
  rule: NumberRule;
  text: string;
  setText: (text: string) => void;
  parsed: ParsedNumber;
  /** The number when the text is valid (null for an empty optional field or invalid text). */
  value: number | null;
  /** Whether the problem (if any) is shown. */
  shown: boolean;
  reveal: () => void;
  /** New text, problem hidden again (after a save). */
  reset: (text?: string) => void;
  ref: RefObject<HTMLInputElement | null>;
}

export function useNumberField(rule: NumberRule, initial = ''): NumberFieldState {
  const [text, setText] = useState(initial);
  const [shown, setShown] = useState(false);
  const ref = useRef<HTMLInputElement>(null);
  const parsed = parseNumber(text, rule);
  return {
    rule,
    text,
    setText,
    parsed,
    value: parsed.ok ? parsed.value : null,
    shown,
    reveal: () => setShown(true),
    reset: (next = '') => {
      setText(next);
      setShown(false);
    },
    ref,
  };
}

/**
 * For a submit: shows the problems of every field given, focuses the first field with one and
 * returns false; true when all of them are valid (then read `.value`).
 */
export function checkFields(...fields: NumberFieldState[]): boolean {
  const bad = fields.filter((f) => !f.parsed.ok);
  for (const f of bad) f.reveal();
  bad[0]?.ref.current?.focus();
  return bad.length === 0;
}

/** The words for a problem in the UI language. */
export function useNumberProblemText(): (problem: NumberProblem) => string {
  const { t } = useTranslation();
  const f = useFormat();
  return (problem) => {
    switch (problem.kind) {
      case 'decimals':
        return problem.decimals === 0 ? t('numbers.noDecimals', { currency: problem.currency }) : t('numbers.decimals', { currency: problem.currency, count: problem.decimals });
      case 'tooLarge':
        return t('numbers.tooLarge', { max: problem.max });
      case 'whole':
        return t('numbers.whole', { min: f.number(problem.min), max: f.number(problem.max) });
      case 'required':
        return t('numbers.required');
      case 'format':
        return t('numbers.format');
      case 'negative':
        return t('numbers.negative');
      case 'zero':
        return t('numbers.zero');
      case 'rate':
        return t('numbers.rate');
    }
  };
}

type NumberFieldProps = Omit<TextInputProps, 'value' | 'onChange' | 'type' | 'error'> & {
  field: NumberFieldState;
  /** An error from the server about this field, shown when the field has none of its own. */
  error?: ReactNode;
};

export function NumberField({ field, error, onBlur, ...rest }: NumberFieldProps) {
  const problemText = useNumberProblemText();
  const own = field.shown && !field.parsed.ok ? problemText(field.parsed.problem) : null;
  return (
    <TextInput
      ref={field.ref}
      value={field.text}
      onChange={(event) => field.setText(event.currentTarget.value)}
      onBlur={(event) => {
        if (field.text.trim() !== '') field.reveal();
        onBlur?.(event);
      }}
      inputMode={field.rule.kind === 'whole' ? 'numeric' : 'decimal'}
      autoComplete="off"
      spellCheck={false}
      error={own ?? error}
      {...rest}
    />
  );
}
