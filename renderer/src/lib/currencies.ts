/** ISO 4217 codes offered in pickers: every currency this browser's Intl knows, common ones first. */
const COMMON = ['CNY', 'USD', 'EUR', 'JPY', 'GBP', 'HKD', 'TWD', 'SGD', 'KRW', 'AUD', 'CAD', 'CHF'];
function all(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
  const list = intl.supportedValuesOf ? intl.supportedValuesOf('currency') : [];
  return [...COMMON, ...list.filter((c) => !COMMON.includes(c))];
}
export const CURRENCIES: string[] = all();

/** The languages whose currency names the picker searches, whatever the UI language. */
const NAME_LANGUAGES = ['en', 'zh-CN'] as const;

const nameCache = new Map<string, string>();
/** The currency's name in `language` ("Chinese Yuan", "人民币"), or '' when Intl has none. */
export function currencyName(code: string, language: string): string {
  const key = `${language}|${code}`;
  let name = nameCache.get(key);
  if (name === undefined) {
    try {
      const of = new Intl.DisplayNames([language], { type: 'currency' }).of(code);
      name = of && of !== code ? of : '';
    } catch {
      name = '';
    }
    nameCache.set(key, name);
  }
  return name;
}

const fold = (text: string) => text.normalize('NFKC').toLowerCase().trim();

/**
 * The codes matching what was typed, best first: the code itself, codes starting with it, names
 * (English or Chinese) starting with it or with a word starting with it, then names containing it.
 * Case and full-width forms do not matter ("cn", "ＣＮ", "yuan", "人民" all find CNY). An empty
 * query answers every code in the given order.
 */
export function searchCurrencies(query: string, codes: readonly string[] = CURRENCIES): string[] {
  const q = fold(query);
  if (!q) return [...codes];
  const ranked: Array<{ code: string; rank: number; index: number }> = [];
  codes.forEach((code, index) => {
    const c = code.toLowerCase();
    const names = NAME_LANGUAGES.map((language) => fold(currencyName(code, language)));
    let rank = -1;
    if (c === q) rank = 0;
    else if (c.startsWith(q)) rank = 1;
    else if (names.some((n) => n.startsWith(q) || n.split(/[\s(（-]+/).some((word) => word.startsWith(q)))) rank = 2;
    else if (names.some((n) => n.includes(q))) rank = 3;
    if (rank >= 0) ranked.push({ code, rank, index });
  });
  return ranked.sort((a, b) => a.rank - b.rank || a.index - b.index).map((r) => r.code);
}
