import { errorCatalogue } from '../lib/errors';

/**
 * The errors of budgets and recurring rules (docs/api.md names them `planning.<row>`). Codes are
 * their HTTP status (these actions are PennyPost's own, not the seed's).
 */
export const planningErrors = errorCatalogue(
  {
    budgetNotFound: { code: 404, status: 404, message: () => 'No such budget: it does not exist or is not yours.' },
    recurringNotFound: { code: 404, status: 404, message: () => 'No such recurring record: it does not exist or is not yours.' },
  },
  'planning',
);
