import { currencyDecimals } from '../lib/money';
import { amountBounds, dateSpan, type SearchTerm } from './search-query';
import type { Entry, UserLedgerView } from './views';

/** A compiled search: the date span every match lies in (for the binary search) and a test per record. */
export interface CompiledSearch {
  /** Inclusive start (ms), or -Infinity. */
  from: number;
  /** Exclusive end (ms), or Infinity. */
  to: number;
  test: (entry: Entry) => boolean;
}

type Test = (entry: Entry) => boolean;

/** The asset ids whose name contains `word` (lower case). */
function assetsNamed(view: UserLedgerView, word: string): Set<string> {
  const ids = new Set<string>();
  for (const asset of view.assets.values()) if (asset.name.normalize('NFKC').toLowerCase().includes(word)) ids.add(asset.id);
  return ids;
}

function textTest(view: UserLedgerView, term: Extract<SearchTerm, { kind: 'text' }>): Test {
  const word = term.value;
  switch (term.field) {
    case 'any': {
      const assets = assetsNamed(view, word);
      return (e) => e.haystack.includes(word) || assets.has(e.asset) || (e.toAsset !== '' && assets.has(e.toAsset));
    }
    case 'tag':
      return (e) => e.tags.some((tag) => tag.normalize('NFKC').toLowerCase().includes(word));
    case 'category':
      return (e) => e.category !== '' && e.category.normalize('NFKC').toLowerCase().includes(word);
    case 'asset': {
      const assets = assetsNamed(view, word);
      return (e) => assets.has(e.asset) || (e.toAsset !== '' && assets.has(e.toAsset));
    }
  }
}

/**
 * Amounts compare in each record's own currency (major units): the bounds are turned into minor
 * units once per asset. A cross-currency transfer matches by the amount sent or the amount received.
 */
function amountTest(view: UserLedgerView, term: Extract<SearchTerm, { kind: 'amount' }>): Test {
  const byDigits = new Map<number, [number, number]>();
  const byAsset = new Map<string, [number, number]>();
  const boundsOf = (assetId: string): [number, number] => {
    let bounds = byAsset.get(assetId);
    if (!bounds) {
      const asset = view.assets.get(assetId);
      const digits = asset ? currencyDecimals(asset.currency) : 2;
      bounds = byDigits.get(digits) ?? amountBounds(term, digits);
      byDigits.set(digits, bounds);
      byAsset.set(assetId, bounds);
    }
    return bounds;
  };
  return (e) => {
    const [min, max] = boundsOf(e.asset);
    if (e.amount >= min && e.amount <= max) return true;
    if (e.type !== 'transfer' || e.toAmount <= 0) return false;
    const [toMin, toMax] = boundsOf(e.toAsset);
    return e.toAmount >= toMin && e.toAmount <= toMax;
  };
}

/** Compiles parsed terms (search-query.ts) against a user's view; dates in `timeZone`. */
export function compileSearch(view: UserLedgerView, terms: SearchTerm[], timeZone: string): CompiledSearch {
  let from = -Infinity;
  let to = Infinity;
  const tests: Test[] = [];
  for (const term of terms) {
    if (term.kind === 'date') {
      const [start, end] = dateSpan(term, timeZone);
      from = Math.max(from, start);
      to = Math.min(to, end);
    } else if (term.kind === 'amount') tests.push(amountTest(view, term));
    else tests.push(textTest(view, term));
  }
  const test: Test = tests.length === 0 ? () => true : tests.length === 1 ? tests[0] : (e) => tests.every((t) => t(e));
  return { from, to, test };
}
