import { Type } from '@sinclair/typebox';
import { defineAction, defineActions, Params } from '../api/action';
import { Id } from '../api/params';
import { commonErrors } from '../lib/errors';
import { ledgerErrors } from './errors';

const CATEGORY_SHAPE = '`{id, type, name, icon, position}`';

const categoryList = defineAction({
  summary: "The user's income and expense categories (a default set on first use).",
  auth: 'user',
  params: Params({ type: Type.Optional(Type.Union([Type.Literal('income'), Type.Literal('expense')])) }),
  returns: `\`{list: [${CATEGORY_SHAPE}]}\``,
  handler: async (params, ctx) => ({ list: await ctx.app.services.ledger.categories.list(ctx.user.id, params.type) }),
});

const categoryCreate = defineAction({
  summary: 'Add a category.',
  auth: 'user',
  params: Params({
    type: Type.Union([Type.Literal('income'), Type.Literal('expense')]),
    name: Type.String({ minLength: 1, maxLength: 64, pattern: '\\S', hint: 'notBlank' }),
    icon: Type.Optional(Type.String({ maxLength: 200 })),
  }),
  returns: CATEGORY_SHAPE,
  errors: [[ledgerErrors.rows.categoryExists, 'a category of that type with that name (any case) exists']],
  handler: (params, ctx) => ctx.app.services.ledger.categories.create(ctx.user.id, params),
});

const categoryUpdate = defineAction({
  summary: 'Rename a category or change its icon; its records follow the new name.',
  auth: 'user',
  params: Params({
    id: Id(),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '\\S', hint: 'notBlank' })),
    icon: Type.Optional(Type.String({ maxLength: 200 })),
  }),
  returns: CATEGORY_SHAPE,
  errors: [
    [ledgerErrors.rows.categoryNotFound, "unknown or another user's category"],
    [ledgerErrors.rows.categoryExists, 'the new name is taken'],
  ],
  handler: (params, ctx) => ctx.app.services.ledger.categories.update(ctx.user.id, params),
});

const categoryDelete = defineAction({
  summary: 'Delete a category; its records move to `moveTo`.',
  auth: 'user',
  params: Params({ id: Id(), moveTo: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) }),
  returns: '`{deleted: true, movedRecords}`',
  errors: [
    [ledgerErrors.rows.categoryNotFound, "unknown or another user's category"],
    [ledgerErrors.rows.categoryInUse, 'records use it and no moveTo was given'],
    [commonErrors.rows.invalid, 'moveTo is unknown or the same category'],
  ],
  handler: (params, ctx) => ctx.app.services.ledger.categories.delete(ctx.user.id, params),
});

/** category.*: the user's income and expense categories. */
export const categoryActions = defineActions({
  'category.list': categoryList,
  'category.create': categoryCreate,
  'category.update': categoryUpdate,
  'category.delete': categoryDelete,
});
