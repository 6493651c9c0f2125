import { errorCatalogue } from '../lib/errors';
import { currencyDecimals } from '../lib/money';

/**
 * The errors of the savings game (docs/api.md names them `savings.<row>`). Amounts in messages
 * are major units of the goal's currency or coins, as the caller sent them.
 */
export const savingsErrors = errorCatalogue(
  {
    goalNotFound: { code: 4001, status: 404, message: () => 'No such goal: it does not exist or is not yours.' },
    goalCompleted: { code: 4002, status: 409, message: () => 'This goal is completed and can no longer be changed.' },
    insufficientFunds: {
      code: 4003,
      status: 409,
      message: (quantity: number, price: number, cost: number, cash: number) => `Not enough coins: ${quantity} × ${price} = ${cost} coins, you have ${cash}.`,
    },
    /** The same code as the ledger's invalidAmount (3003): an amount that must not be zero or negative. */
    targetNotPositive: { code: 3003, status: 400, message: () => 'targetAmount must be greater than 0.' },
    /** The same code as the ledger's invalidAmount (3003). */
    zeroProgress: { code: 3003, status: 400, message: () => 'amount must not be 0 (positive adds savings, negative withdraws).' },
    progressTooLarge: { code: 400, status: 400, message: () => 'params.amount is too large' },
    unknownCurrency: { code: 400, status: 400, message: (currency: string) => `Unknown currency "${currency}".` },
    blankTitle: { code: 400, status: 400, message: () => 'params.title must not be blank' },
    endBeforeStart: { code: 400, status: 400, message: () => 'endDate must be after startDate.' },
    endInThePast: { code: 400, status: 400, message: () => 'endDate must be in the future.' },
    tooManyOpenGoals: { code: 409, status: 409, message: (limit: number) => `You already have ${limit} open goals; complete, cancel or delete one first.` },
    goalNotActive: {
      code: 409,
      status: 409,
      message: (status: string) => `This goal is ${status}; set its status back to "active" (savings.updateGoal) before changing its progress.`,
    },
    withdrawalTooLarge: {
      code: 409,
      status: 409,
      // "2,000.00 CNY": grouped, with all of the currency's decimals (the UI says the same in its own language before asking).
      message: (saved: number, currency: string) => {
        const digits = currencyDecimals(currency);
        return `You can withdraw at most ${saved.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })} ${currency} from this goal.`;
      },
    },
    stockNotFound: { code: 404, status: 404, message: (stockId: string) => `No stock "${stockId}" on the market (see savings.getMarket).` },
    notEnoughShares: { code: 409, status: 409, message: (held: number, stockId: string, quantity: number) => `You hold ${held} ${stockId}; you cannot sell ${quantity}.` },
    cashBeyondExactRange: {
      code: 400,
      status: 400,
      message: (quantity: number, stockId: string, price: number, limit: string) =>
        `Selling ${quantity} ${stockId} at ${price} would take your cash beyond ${limit} coins, the largest amount PennyPost keeps exactly; sell fewer shares.`,
    },
    unknownTimeZone: {
      code: 400,
      status: 400,
      message: (timeZone: string) => `Unknown time zone "${timeZone}" (use an IANA name like "Asia/Shanghai", or "" for this computer's).`,
    },
  },
  'savings',
);
