import { useMemo } from 'react';
import { useFormat } from '../../lib/format';

/** A coin has two decimals, like a cent (docs/savings-game.md): every amount of coins shows both, "9,538.40", never "9,538.4". */
const COIN = { minimumFractionDigits: 2, maximumFractionDigits: 2 } as const;

/** Coin amounts in the UI language's number format: `coins(n)`, and `signed(n)` for changes (+12.50 / −3.00). */
export function useCoins() {
  const f = useFormat();
  return useMemo(
    () => ({
      coins: (n: number) => f.number(n, COIN),
      signed: (n: number) => f.number(n, { ...COIN, signDisplay: 'exceptZero' }),
    }),
    [f],
  );
}
