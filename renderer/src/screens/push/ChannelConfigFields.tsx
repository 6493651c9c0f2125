import { createRef, useRef, useState, type ReactNode, type RefObject } from 'react';
import { PasswordInput, Select, TextInput } from '@mantine/core';
import { checkFields, NumberField, type NumberFieldState } from '../../components/NumberField';
import { parseNumber, type NumberRule } from '../../lib/parse-number';
import { useChannelText, type ChannelField, type ChannelTypeInfo } from './channel-types';

/**
 * The settings of a channel, built from its driver's config schema (push.queryChannelTypes): a
 * text field per text setting (a password field for secrets, which come back masked), a menu per
 * choice, a number field per integer. Nothing here knows a channel type.
 */
export interface ConfigForm {
  text(field: ChannelField): string;
  set(field: ChannelField, value: string): void;
  number(field: ChannelField): NumberFieldState;
  /** Shows the problems of the number fields and returns false when there is one. */
  check(info: ChannelTypeInfo): boolean;
  /** `params.config` for the type: every field as entered (integers left empty are left out). */
  config(info: ChannelTypeInfo): Record<string, unknown>;
}

/** A new field's text: a choice starts at its first option, an integer at its minimum. */
function initialText(field: ChannelField): string {
  if (field.kind === 'choice') return field.options?.[0] ?? '';
  if (field.kind === 'integer') return String(field.minimum ?? 0);
  return '';
}

const ruleOf = (field: ChannelField): NumberRule => ({ kind: 'whole', min: field.minimum ?? 0, max: field.maximum ?? Number.MAX_SAFE_INTEGER, optional: !field.required });

/** A stored setting as the form's text: the form's fields are text, integers or choices. */
const settingText = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : '');

/** The form state of a channel's settings; `stored` is the channel's (masked) config when editing. */
export function useConfigForm(stored: Record<string, unknown>): ConfigForm {
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(Object.entries(stored).map(([key, value]) => [key, settingText(value)])));
  const [shown, setShown] = useState<ReadonlySet<string>>(() => new Set());
  const refs = useRef(new Map<string, RefObject<HTMLInputElement | null>>());
  const text = (field: ChannelField) => values[field.name] ?? initialText(field);
  const set = (field: ChannelField, value: string) => setValues((current) => ({ ...current, [field.name]: value }));
  const number = (field: ChannelField): NumberFieldState => {
    const rule = ruleOf(field);
    const parsed = parseNumber(text(field), rule);
    let ref = refs.current.get(field.name);
    if (!ref) {
      ref = createRef<HTMLInputElement>();
      refs.current.set(field.name, ref);
    }
    const reveal = () => setShown((current) => new Set(current).add(field.name));
    return {
      rule,
      text: text(field),
      setText: (value) => set(field, value),
      parsed,
      value: parsed.ok ? parsed.value : null,
      shown: shown.has(field.name),
      reveal,
      reset: (value = '') => set(field, value),
      ref,
    };
  };
  return {
    text,
    set,
    number,
    check: (info) => checkFields(...info.fields.filter((field) => field.kind === 'integer').map(number)),
    config: (info) => {
      const out: Record<string, unknown> = {};
      for (const field of info.fields) {
        if (field.kind === 'integer') {
          const value = number(field).value;
          if (value !== null) out[field.name] = value;
        } else {
          // Secrets are sent as typed (a masked value sent back keeps the stored secret).
          out[field.name] = field.secret ? text(field) : text(field).trim();
        }
      }
      return out;
    },
  };
}

export function ChannelConfigFields({ info, form, errorOf }: { info: ChannelTypeInfo; form: ConfigForm; errorOf: (field: string) => ReactNode }) {
  const words = useChannelText();
  return (
    <>
      {info.fields.map((field) => {
        const common = {
          label: words.fieldLabel(info.type, field.name),
          description: words.fieldHint(info.type, field.name),
          error: errorOf(field.name),
        };
        if (field.kind === 'integer') return <NumberField key={field.name} field={form.number(field)} required={field.required} {...common} />;
        if (field.kind === 'choice') {
          return (
            <Select
              key={field.name}
              data={(field.options ?? []).map((option) => ({ value: option, label: words.optionLabel(info.type, field.name, option) }))}
              value={form.text(field)}
              onChange={(value) => value && form.set(field, value)}
              allowDeselect={false}
              {...common}
            />
          );
        }
        const Input = field.secret ? PasswordInput : TextInput;
        return (
          <Input
            key={field.name}
            value={form.text(field)}
            onChange={(event) => form.set(field, event.currentTarget.value)}
            required={field.required}
            placeholder={field.example}
            maxLength={field.maxLength}
            {...common}
          />
        );
      })}
    </>
  );
}
