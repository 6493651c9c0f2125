import { errorCatalogue } from '../lib/errors';

/** The errors of app.* (docs/api.md). */
export const appInfoErrors = errorCatalogue(
  {
    packageNotFound: { code: 404, status: 404, message: (name: string) => `PennyPost ships no package named "${name}".` },
  },
  'app-info',
);
