import { Type } from '@sinclair/typebox';
import { defineAction, defineActions, Params } from '../api/action';
import { Currency, Id, Money, Ms } from '../api/params';
import { commonErrors } from '../lib/errors';
import { Deleted } from '../api/result';
import { ledgerErrors } from './errors';
import { BaseCurrencyAnswer, BaseCurrencySet, Conversion, RateList, RateShape } from './result-shapes';

const currencyGet = defineAction({
  summary: 'The base currency used for totals and statistics.',
  notes: 'Until you set one, it is the currency of your first asset; with no assets, that of the language chosen at sign-up (CNY for zh-CN, USD for en).',
  auth: 'user',
  params: Params({}),
  result: BaseCurrencyAnswer,
  handler: async (_params, ctx) => {
    const { currency, explicit } = await ctx.app.services.ledger.baseCurrency(ctx.user.id);
    return { baseCurrency: currency, explicit };
  },
});

const currencySetBase = defineAction({
  summary: 'Set the base currency.',
  auth: 'user',
  params: Params({ currency: Currency() }),
  result: BaseCurrencySet,
  errors: [[ledgerErrors.rows.unknownCurrency, 'unknown currency']],
  handler: (params, ctx) => ctx.app.services.ledger.setBaseCurrency(ctx.user.id, params.currency),
});

const currencySetRate = defineAction({
  summary: 'Set an exchange rate effective from a date (replaces a rate of the same pair and date).',
  notes:
    'Conversions use the latest rate on or before the record\'s date (before the first rate: the earliest one); a pair works both ways. Rates are exact decimals; pass them as strings ("7.1234") or numbers.',
  auth: 'user',
  params: Params({
    from: Currency(),
    to: Currency(),
    rate: Type.Union([Type.String({ maxLength: 40 }), Type.Number()], { description: 'Positive decimal, up to 12 decimals.' }),
    date: Type.Optional(Ms('Effective from (default now).')),
  }),
  result: RateShape,
  errors: [[commonErrors.rows.invalid, 'unknown currency, same currency twice, or a rate that is not a positive decimal']],
  handler: (params, ctx) => ctx.app.services.ledger.rates.set(ctx.user.id, params),
});

const currencyListRates = defineAction({
  summary: 'Exchange rates, newest first, optionally for one currency.',
  auth: 'user',
  params: Params({ currency: Type.Optional(Currency()) }),
  result: RateList,
  handler: async (params, ctx) => ({ list: await ctx.app.services.ledger.rates.list(ctx.user.id, params.currency) }),
});

const currencyDeleteRate = defineAction({
  summary: 'Delete an exchange rate.',
  auth: 'user',
  params: Params({ id: Id() }),
  result: Deleted,
  errors: [[ledgerErrors.rows.rateNotFound, "unknown or another user's rate"]],
  handler: (params, ctx) => ctx.app.services.ledger.rates.delete(ctx.user.id, params.id),
});

const currencyConvert = defineAction({
  summary: 'Convert an amount between two currencies at your exchange rates, as a transfer would.',
  notes:
    'Uses the same rate and rounding as a transfer across currencies without `toAmount` (the latest rate on or before `date`, a pair works both ways; ' +
    "rounded half away from zero to the target currency's decimals), so a UI can show the amount received before saving. `inverse` is true when the stored rate is " +
    'the reverse pair (1 `to` = `rate` `from`). Without a rate linking the two: `amount` and `rate` are null.',
  auth: 'user',
  params: Params({
    amount: Money('Positive, major units of `from` with at most its decimals.'),
    from: Currency(),
    to: Currency(),
    date: Type.Optional(Ms('The date whose rate applies (default now).')),
  }),
  result: Conversion,
  errors: [
    [ledgerErrors.rows.unknownCurrency, 'unknown currency'],
    [ledgerErrors.rows.invalidAmount, 'amount is zero or negative'],
    [commonErrors.rows.invalid, 'more decimals than the currency has, or a result beyond the exact range'],
  ],
  handler: (params, ctx) => ctx.app.services.ledger.rates.convert(ctx.user.id, params),
});

/** currency.*: the base currency and the exchange rates. */
export const currencyActions = defineActions({
  'currency.get': currencyGet,
  'currency.setBase': currencySetBase,
  'currency.setRate': currencySetRate,
  'currency.listRates': currencyListRates,
  'currency.deleteRate': currencyDeleteRate,
  'currency.convert': currencyConvert,
});
