import { defineAction, defineActions, Params } from '../api/action';
import { TimeZone } from '../api/params';
import { TimeZoneSet } from './result-shapes';

/**
 * The person's own time zone (docs/ui.md, "Times"): the UI sends the browser's zone after signing
 * in, and what has no viewer to ask — a notice forwarded to the inbox, a message page opened from
 * a link, the name of an export — is read and shown in it.
 */
const setTimeZone = defineAction({
  summary: "Keep the account's time zone: the one notices, message pages and exports use when no viewer is there to ask.",
  notes: 'The UI sends the browser\'s zone (Intl) after signing in. Until one is set, this computer\'s zone is used. An IANA name such as "Asia/Shanghai"; others answer 400.',
  auth: 'user',
  params: Params({ timeZone: TimeZone('IANA time zone of the person, e.g. "Asia/Shanghai".') }),
  result: TimeZoneSet,
  handler: async (params, ctx) => ({ timeZone: await ctx.app.services.users.setTimeZone(ctx.user.id, params.timeZone) }),
});

export const localeActions = defineActions({ 'user.setTimeZone': setTimeZone });
