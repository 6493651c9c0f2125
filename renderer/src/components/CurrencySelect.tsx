import { useMemo, useRef, type KeyboardEvent } from 'react';
import { Select, Text, type ComboboxItem, type ComboboxParsedItem, type SelectProps } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { CURRENCIES, currencyName, searchCurrencies } from '../lib/currencies';

type CurrencySelectProps = Omit<SelectProps, 'data' | 'value' | 'onChange' | 'searchable' | 'filter' | 'renderOption' | 'nothingFoundMessage'> & {
  value: string | null;
  onChange: (code: string) => void;
};

const isItem = (option: ComboboxParsedItem): option is ComboboxItem => 'value' in option;

/**
 * The one currency picker (docs/ui.md, "The currency picker"): searchable over the code and the
 * names in English and Chinese, best match first; typing replaces the chosen code instead of
 * being appended to it; "nothing found" in the UI language. The field shows the code, the list
 * the code and the name.
 */
export function CurrencySelect({ value, onChange, onFocus, onKeyDown, ...rest }: CurrencySelectProps) {
  const { t, i18n } = useTranslation();
  const data = useMemo(() => (value && !CURRENCIES.includes(value) ? [value, ...CURRENCIES] : CURRENCIES), [value]);
  const input = useRef<HTMLInputElement>(null);
  // The text still showing the chosen code is selected, so the first key typed replaces it.
  const selectAll = () => input.current?.select();
  return (
    <Select
      ref={input}
      data={data}
      value={value}
      onChange={(code) => code && onChange(code)}
      searchable
      allowDeselect={false}
      autoComplete="off"
      comboboxProps={{ width: 280, position: 'bottom-start' }}
      nothingFoundMessage={t('currencyPicker.nothingFound')}
      filter={({ options, search }) => {
        const items = options.filter(isItem);
        const byCode = new Map(items.map((o) => [o.value, o]));
        return searchCurrencies(search, [...byCode.keys()]).flatMap((code) => byCode.get(code) ?? []);
      }}
      renderOption={({ option }) => (
        <span className="pp-currency-option">
          <Text span fw={600} size="sm">
            {option.value}
          </Text>
          {/* The option is named by its code (as the field shows it); the name is what one reads to find it. */}
          <Text span size="sm" c="dimmed" aria-hidden>
            {currencyName(option.value, i18n.language)}
          </Text>
        </span>
      )}
      onFocus={(event) => {
        selectAll();
        onFocus?.(event);
      }}
      onKeyDown={(event: KeyboardEvent<HTMLInputElement>) => {
        const field = event.currentTarget;
        const printable = event.key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey;
        if (printable && field.value === value && field.selectionStart === field.selectionEnd) field.select();
        onKeyDown?.(event);
      }}
      {...rest}
    />
  );
}
