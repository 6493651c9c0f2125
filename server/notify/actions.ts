import { defineActions } from '../api/action';

/** notify.configure / notify.get (docs/budgets.md, "Reminders"). */
export const notifyActions = defineActions({});
