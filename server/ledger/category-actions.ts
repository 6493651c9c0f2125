import { Type } from '@sinclair/typebox';
import { defineAction, defineActions, Params } from '../api/action';
import { Id, OneOf, Text } from '../api/params';
import { LANGUAGES } from '../lib/languages';
import { commonErrors } from '../lib/errors';
import { ledgerErrors } from './errors';
import { CategoryDeleted, CategoryList, CategoryRenames, CategoryShape } from './result-shapes';
import { CATEGORY_TEXT } from './text-limits';

const categoryList = defineAction({
  summary: "The user's income and expense categories (on first use, the default set of the language chosen at sign-up: English or Chinese names).",
  auth: 'user',
  params: Params({ type: Type.Optional(Type.Union([Type.Literal('income'), Type.Literal('expense')])) }),
  result: CategoryList,
  handler: async (params, ctx) => ({ list: await ctx.app.services.ledger.categories.list(ctx.user.id, params.type) }),
});

const categoryCreate = defineAction({
  summary: 'Add a category.',
  auth: 'user',
  params: Params({
    type: Type.Union([Type.Literal('income'), Type.Literal('expense')]),
    name: Text(CATEGORY_TEXT.name, { minLength: 1, pattern: '\\S', hint: 'notBlank' }),
    icon: Type.Optional(Type.String({ maxLength: 200 })),
  }),
  result: CategoryShape,
  errors: [[ledgerErrors.rows.categoryExists, 'a category of that type with that name (any case) exists']],
  handler: (params, ctx) => ctx.app.services.ledger.categories.create(ctx.user.id, params),
});

const categoryUpdate = defineAction({
  summary: 'Rename a category or change its icon; its records follow the new name.',
  auth: 'user',
  params: Params({
    id: Id(),
    name: Type.Optional(Text(CATEGORY_TEXT.name, { minLength: 1, pattern: '\\S', hint: 'notBlank' })),
    icon: Type.Optional(Type.String({ maxLength: 200 })),
  }),
  result: CategoryShape,
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
  result: CategoryDeleted,
  errors: [
    [ledgerErrors.rows.categoryNotFound, "unknown or another user's category"],
    [ledgerErrors.rows.categoryInUse, 'records use it and no moveTo was given'],
    [commonErrors.rows.invalid, 'moveTo is unknown or the same category'],
  ],
  handler: (params, ctx) => ctx.app.services.ledger.categories.delete(ctx.user.id, params),
});

const categoryRenameDefaults = defineAction({
  summary: 'Rename the default categories nobody edited to their names in another language (after a language switch); records follow.',
  notes:
    'A default category stays untouched while its name is its default name in some language (Food, 餐饮…); one renamed by hand keeps its name, and categories the person created are never touched. ' +
    'A default whose new name another category of its type already has keeps its name (counted in `kept`). `preview: true` changes nothing and answers what would change. ' +
    "Only the caller's own categories change; the account language chosen at sign-up and the base currency stay as they are.",
  auth: 'user',
  params: Params({
    language: OneOf(LANGUAGES, { description: 'The language whose default names the untouched defaults take.' }),
    preview: Type.Optional(Type.Boolean({ default: false, description: 'Only say what would change.' })),
  }),
  result: CategoryRenames,
  errors: [[commonErrors.rows.invalid, 'language is not en or zh-CN']],
  handler: (params, ctx) => ctx.app.services.ledger.categories.renameDefaults(ctx.user.id, params),
});

/** category.*: the user's income and expense categories. */
export const categoryActions = defineActions({
  'category.list': categoryList,
  'category.create': categoryCreate,
  'category.update': categoryUpdate,
  'category.delete': categoryDelete,
  'category.renameDefaults': categoryRenameDefaults,
});
