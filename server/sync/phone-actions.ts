import { Type } from '@sinclair/typebox';
import { defineAction, Params } from '../api/action';
import { Currency } from '../api/params';
import { commonErrors } from '../lib/errors';
import { syncErrors } from './errors';
import type { PhonePairing } from './phones';
import { AddedPhone, PhoneList, RevokedPhone } from './result-shapes';

declare module '../app-context' {
  interface ServiceMap {
    syncPhones: PhonePairing;
  }
}

const couchErrors = [
  [syncErrors.rows.notConfigured, 'sync is not configured'],
  [syncErrors.rows.phoneNeedsAdmin, 'the configured CouchDB user is not a CouchDB admin (the message says what the admin must do)'],
  [commonErrors.rows.badGateway, 'CouchDB cannot be reached or answered something unexpected'],
] as const;

const addPhone = defineAction({
  summary: "Pair a phone with this ledger: a CouchDB user of the phone's own that may use only this ledger's databases, and the link that carries it.",
  notes:
    'Needs the configured CouchDB user to be a CouchDB admin (else 403 with what the admin must do). The phone gets its own user (`pennypost-phone-…`, ' +
    "a random 32-character password), a member of `<prefix>meta` and of the phone's collections (assets, records, categories, rates, plans); never " +
    "the desktop's credentials. `appUrl` is where the phone app is served (e.g. `https://pennypost.example.net/phone/`); when its origin is not " +
    "CouchDB's, CORS is switched on for it through CouchDB's config API where allowed (`cors`). The link is returned this once; PennyPost keeps no copy of the password.",
  auth: 'user',
  params: Params({
    label: Type.String({ minLength: 1, maxLength: 64, description: 'a name for the phone, shown in the list ("Anna\'s phone")' }),
    language: Type.Optional(Type.Union([Type.Literal('en'), Type.Literal('zh-CN')], { description: "the language the phone app starts in (the desktop's)" })),
    baseCurrency: Type.Optional(Currency("the base currency the phone shows totals in (the desktop's)")),
    appUrl: Type.String({ minLength: 1, maxLength: 2048, pattern: '^https?://[^\\s]+$', hint: 'webAddress', description: 'the address of the phone app the link opens' }),
  }),
  result: AddedPhone,
  errors: [...couchErrors, [commonErrors.rows.forbidden, 'CouchDB refused a step (its words)']],
  handler: (params, ctx) => ctx.app.services.syncPhones.add(ctx.user.id, params),
});

const phones = defineAction({
  summary: 'The phones paired with this ledger, with when each last synced.',
  auth: 'user',
  params: Params({}),
  result: PhoneList,
  errors: [...couchErrors],
  handler: async (_params, ctx) => ({ list: await ctx.app.services.syncPhones.list(ctx.user.id) }),
});

const revokePhone = defineAction({
  summary: "Unpair a phone: it leaves the members of this ledger's databases and its CouchDB user is deleted, so it syncs nothing more.",
  notes: 'The phone says it was disconnected and keeps what it has, read-only. Needs a CouchDB admin, as pairing does.',
  auth: 'user',
  params: Params({ username: Type.String({ minLength: 1, maxLength: 256 }) }),
  result: RevokedPhone,
  errors: [...couchErrors, [syncErrors.rows.phoneNotFound, 'no phone of this ledger has that user name']],
  handler: (params, ctx) => ctx.app.services.syncPhones.revoke(ctx.user.id, params.username),
});

export const phoneActions = { 'sync.addPhone': addPhone, 'sync.phones': phones, 'sync.revokePhone': revokePhone };
