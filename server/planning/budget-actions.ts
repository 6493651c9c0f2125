import { defineActions } from '../api/action';

/** budget.create / query / update / delete (docs/budgets.md). */
export const budgetActions = defineActions({});
