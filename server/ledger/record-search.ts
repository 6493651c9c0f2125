import { currencyDecimals } from '../lib/money';
import { amountBounds, dateSpan, type SearchTerm } from './search-query';
import type { Entry, UserLedgerView } from './views';
import { foldText } from '../lib/fold-text';

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
  for (const asset of view.assets.values()) if (foldText(asset.name).includes(word)) ids.add(asset.id);
  return ids;
}

/** A test on a short string repeated across records (a category, a tag), computed once per distinct value. */
function cached(test: (value: string) => boolean): (value: string) => boolean {
  const seen = new Map<string, boolean>();
  return (value) => {
    let hit = seen.get(value);
    if (hit === undefined) seen.set(value, (hit = test(foldText(value))));
    return hit;
  };
}

function textTest(view: UserLedgerView, term: Extract<SearchTerm, { kind: 'text' }>): Test {
  const word = term.value;
  switch (term.field) {
    case 'any': {
      // each distinct text of the ledger is searched once; a record then costs an array read
      const texts = view.texts;
      const hits = new Uint8Array(texts.length);
      for (const [i, text] of texts.entries()) if (text.includes(word)) hits[i] = 1;
      const assets = assetsNamed(view, word);
      if (assets.size === 0) return (e) => hits[e.textId] === 1;
      return (e) => hits[e.textId] === 1 || assets.has(e.asset) || (e.toAsset !== '' && assets.has(e.toAsset));
    }
    case 'tag': {
      const matches = cached((tag) => tag.includes(word));
      return (e) => e.tags.some(matches);
    }
    case 'category': {
      const matches = cached((category) => category.includes(word));
      return (e) => e.category !== '' && matches(e.category);
    }
    case 'asset': {
      const assets = assetsNamed(view, word);
      return (e) => assets.has(e.asset) || (e.toAsset !== '' && assets.has(e.toAsset));
    }
  }
}

/**
 * Amounts compare in each record's own currency (major units): the bounds are turned into minor
 * units once per number of decimals. A cross-currency transfer matches by the amount sent or the
 * amount received.
 */
function amountTest(view: UserLedgerView, term: Extract<SearchTerm, { kind: 'amount' }>): Test {
  const byDigits = new Map<number, [number, number]>();
  const byAsset = new Map<string, [number, number]>();
  for (const asset of view.assets.values()) {
    const digits = currencyDecimals(asset.currency);
    let bounds = byDigits.get(digits);
    if (!bounds) byDigits.set(digits, (bounds = amountBounds(term, digits)));
    byAsset.set(asset.id, bounds);
  }
  const fallback = amountBounds(term, 2);
  const within = (amount: number, assetId: string) => {
    const [min, max] = byAsset.get(assetId) ?? fallback;
    return amount >= min && amount <= max;
  };
  const transfer = (e: Entry) => e.type === 'transfer' && e.toAmount > 0 && within(e.toAmount, e.toAsset);
  if (byDigits.size <= 1) {
    // one number of decimals among all assets (the usual case): no per-record lookup
    const [min, max] = byDigits.values().next().value ?? fallback;
    return (e) => (e.amount >= min && e.amount <= max) || transfer(e);
  }
  return (e) => within(e.amount, e.asset) || transfer(e);
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
  const [first, second] = tests;
  const test: Test =
    first === undefined
      ? () => true
      : second === undefined
        ? first
        : tests.length === 2
          ? (e) => first(e) && second(e)
          : (e) => {
              for (const t of tests) if (!t(e)) return false;
              return true;
            };
  return { from, to, test };
}
