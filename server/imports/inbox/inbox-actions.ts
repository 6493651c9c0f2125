import { optionalService } from '../../app-context';
import { Type } from '@sinclair/typebox';
import { defineAction, defineActions, Params } from '../../api/action';
import { Id, Ms, OneOf } from '../../api/params';
import { importErrors } from '../errors';
import { Dismissed, DraftConfirmed, DraftList, InboxKey } from '../result-shapes';

const DraftId = Id('Id of a draft in your inbox.', 40);

const getKey = defineAction({
  summary: 'Your inbox: the private URL that turns forwarded payment notices into draft records.',
  notes:
    'POST a notice to `url` as text (the SMS or notification as it came), JSON (`{amount, merchant, type, time, card, currency}` or `{text}`), or a form. ' +
    'Reachable from your network like /send when LAN access is on; at most 8 KB per notice and 60 notices a minute per address. `rotate: true` makes a new URL (the old one stops working).',
  auth: 'user',
  params: Params({ rotate: Type.Optional(Type.Boolean({ default: false })) }),
  result: InboxKey,
  handler: async (params, ctx) => {
    const inboxKey = await ctx.app.services.inbox.key(ctx.user.id, params.rotate ?? false);
    const base = optionalService(ctx.app, 'push')?.baseUrl() ?? ctx.app.listening?.url ?? '';
    return { inboxKey, url: `${base}/in/${inboxKey}` };
  },
});

const query = defineAction({
  summary: 'The drafts waiting in your inbox, newest first, with your rules applied.',
  auth: 'user',
  params: Params({}),
  result: DraftList,
  handler: async (_params, ctx) => ({ list: await ctx.app.services.inbox.list(ctx.user.id) }),
});

const confirm = defineAction({
  summary: 'Record a draft (once: confirming again writes nothing more).',
  auth: 'user',
  params: Params({
    id: DraftId,
    overrides: Type.Optional(
      Type.Object(
        {
          asset: Type.Optional(Id('', 40)),
          amount: Type.Optional(Type.Number({ description: 'In major units of the asset (when the notice is in another currency).' })),
          type: Type.Optional(OneOf(['income', 'expense'] as const)),
          category: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
          tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 32 }), { maxItems: 20 })),
          description: Type.Optional(Type.String({ maxLength: 1000 })),
          date: Type.Optional(Ms('When it happened.')),
        },
        { additionalProperties: false },
      ),
    ),
  }),
  result: DraftConfirmed,
  errors: [
    [importErrors.rows.draftNotFound, 'no such draft of yours'],
    [importErrors.rows.draftNeedsAsset, 'the notice names no card of yours and you have no default asset'],
    [importErrors.rows.draftCurrencyMismatch, "the notice's currency is not the asset's"],
  ],
  handler: (params, ctx) => ctx.app.services.inbox.confirm(ctx.user.id, params.id, params.overrides ?? {}),
});

const dismiss = defineAction({
  summary: 'Throw a draft away.',
  auth: 'user',
  params: Params({ id: DraftId }),
  result: Dismissed,
  errors: [[importErrors.rows.draftNotFound, 'no such draft of yours']],
  handler: async (params, ctx) => {
    await ctx.app.services.inbox.dismiss(ctx.user.id, params.id);
    return { dismissed: true as const };
  },
});

export const inboxActions = defineActions({
  'inbox.getKey': getKey,
  'inbox.query': query,
  'inbox.confirm': confirm,
  'inbox.dismiss': dismiss,
});
