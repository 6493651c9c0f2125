import { defineActions } from '../api/action';

/** recurring.create / query / update / delete / skip / upcoming (docs/budgets.md). */
export const recurringActions = defineActions({});
