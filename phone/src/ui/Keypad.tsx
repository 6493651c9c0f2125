import type { Wording } from '../i18n';

const KEYS = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '.', '0', '⌫'] as const;

/** A number pad for the amount: digits, one decimal point, at most as many decimals as the currency has. */
export function Keypad({ value, decimals, onChange, w }: { value: string; decimals: number; onChange: (next: string) => void; w: Wording }) {
  const press = (key: (typeof KEYS)[number]) => {
    if (key === '⌫') {
      onChange(value.slice(0, -1));
      return;
    }
    if (key === '.') {
      if (decimals > 0 && !value.includes('.')) onChange(value === '' ? '0.' : `${value}.`);
      return;
    }
    const point = value.indexOf('.');
    if (point >= 0 && value.length - point - 1 >= decimals) return;
    if (value.replace('.', '').length >= 13) return;
    onChange(value === '0' ? key : value + key);
  };
  return (
    <div className="keypad" role="group" aria-label={w.t('amount')}>
      {KEYS.map((key) => (
        <button key={key} type="button" className="key" onClick={() => press(key)} aria-label={key === '⌫' ? w.t('keypadDelete') : key} data-key={key}>
          {key}
        </button>
      ))}
    </div>
  );
}
