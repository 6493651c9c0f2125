import { Type } from '@sinclair/typebox';
import { defineAction, defineActions, Params } from '../../api/action';
import { Id, OneOf } from '../../api/params';
import { commonErrors } from '../../lib/errors';
import { Deleted } from '../../api/result';
import { importErrors } from '../errors';
import { Dismissed, RuleList, RuleShape, type RuleView } from '../result-shapes';
import { RULE_FIELDS, RULE_OPS, type RuleDoc } from './rule-types';

const RuleId = Id('Id of one of your rules.', 40);
const Match = Type.Object(
  {
    field: OneOf(RULE_FIELDS, { description: 'What the rule looks at.' }),
    op: OneOf(RULE_OPS, { description: 'description/payee: contains, equals, regex; amount: equals, gt, lt; asset: equals.' }),
    value: Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Number()], { description: 'Text (case-insensitive), an amount in major units, or an asset id.' }),
  },
  { additionalProperties: false },
);
const SetFields = Type.Object(
  {
    category: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'A category name of yours.' })),
    tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 32 }), { maxItems: 20, description: 'Tags to add.' })),
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'Replaces the description.' })),
  },
  { additionalProperties: false },
);
const AutoConfirm = Type.Boolean({ description: 'Inbox drafts this rule matches are recorded at once (when their asset is known).' });

const RULE_ERRORS = [
  [importErrors.rows.ruleOpNotForField, 'the operator does not go with the field'],
  [importErrors.rows.ruleBadValue, 'the value does not fit the field'],
  [importErrors.rows.ruleBadRegex, 'the regular expression does not compile or could take exponential time'],
  [importErrors.rows.ruleSetsNothing, 'set is empty'],
  [importErrors.rows.ruleUnknownCategory, 'set.category is not a category of yours'],
  [importErrors.rows.ruleUnknownAsset, 'an asset rule names no asset of yours'],
  [commonErrors.rows.invalid, 'invalid params'],
] as const;

/** A rule as its owner sees it (no userId). */
const view = (doc: RuleDoc): RuleView => ({ id: doc.id, match: doc.match, set: doc.set, autoConfirm: doc.autoConfirm, createdAt: doc.createdAt, updatedAt: doc.updatedAt });

const create = defineAction({
  summary: 'Create a rule: when an imported line or an inbox draft matches, set its category, tags or description.',
  notes:
    'Rules run in the order they were made on every import and inbox draft; where two set the same field, the later one wins; tags add up. ' +
    "Text matches ignore case and width (ＡＢＣ = abc). A category that does not exist for the record's type (an expense category on income) is not applied.",
  auth: 'user',
  params: Params({ match: Match, set: SetFields, autoConfirm: Type.Optional(AutoConfirm) }),
  result: RuleShape,
  errors: [...RULE_ERRORS, [importErrors.rows.tooManyRules, 'the account has 500 rules']],
  handler: async (params, ctx) => view(await ctx.app.services.importRules.create(ctx.user.id, params)),
});

const query = defineAction({
  summary: 'Your rules, oldest first, and the rules PennyPost suggests from your re-categorisations.',
  notes: 'A suggestion appears when you moved records of the same payee to the same category twice; rule.create with its match and set makes it a rule.',
  auth: 'user',
  params: Params({}),
  result: RuleList,
  handler: async (_params, ctx) => {
    const userId = ctx.user.id;
    const list = (await ctx.app.services.importRules.list(userId)).map(view);
    return { list, suggestions: await ctx.app.services.ruleSuggestions.list(userId) };
  },
});

const update = defineAction({
  summary: 'Change a rule (match, set, autoConfirm).',
  auth: 'user',
  params: Params({ id: RuleId, match: Type.Optional(Match), set: Type.Optional(SetFields), autoConfirm: Type.Optional(AutoConfirm) }),
  result: RuleShape,
  errors: [[importErrors.rows.ruleNotFound, 'no such rule of yours'], ...RULE_ERRORS],
  handler: async (params, ctx) => view(await ctx.app.services.importRules.update(ctx.user.id, params.id, params)),
});

const remove = defineAction({
  summary: 'Delete a rule (records it already set keep what it set).',
  auth: 'user',
  params: Params({ id: RuleId }),
  result: Deleted,
  errors: [[importErrors.rows.ruleNotFound, 'no such rule of yours']],
  handler: async (params, ctx) => {
    await ctx.app.services.importRules.delete(ctx.user.id, params.id);
    return { deleted: true as const };
  },
});

const dismiss = defineAction({
  summary: 'Stop suggesting one rule (by its suggestion key from rule.query).',
  auth: 'user',
  params: Params({ key: Type.String({ minLength: 1, maxLength: 200 }) }),
  result: Dismissed,
  handler: async (params, ctx) => {
    await ctx.app.services.ruleSuggestions.dismiss(ctx.user.id, params.key);
    return { dismissed: true as const };
  },
});

export const ruleActions = defineActions({
  'rule.create': create,
  'rule.query': query,
  'rule.update': update,
  'rule.delete': remove,
  'rule.dismissSuggestion': dismiss,
});
