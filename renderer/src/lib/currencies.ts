/** ISO 4217 codes offered in pickers: every currency this browser's Intl knows, common ones first. */
const COMMON = ['CNY', 'USD', 'EUR', 'JPY', 'GBP', 'HKD', 'TWD', 'SGD', 'KRW', 'AUD', 'CAD', 'CHF'];
function all(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
  const list = intl.supportedValuesOf ? intl.supportedValuesOf('currency') : [];
  return [...COMMON, ...list.filter((c) => !COMMON.includes(c))];
}
export const CURRENCIES: string[] = all();
