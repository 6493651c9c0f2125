import { errorCatalogue } from '../lib/errors';

/**
 * The errors of the /api wrapper itself: the role checks (a pending password change is the sign-in's,
 * server/http/sign-in.ts). Every
 * other error comes from a domain's catalogue (`<domain>/errors.ts`) or the shared
 * `commonErrors` (server/lib/errors.ts); the codes and statuses are a contract (docs/api.md).
 */
export const apiErrors = errorCatalogue(
  {
    ownerOnly: { code: 1004, status: 403, message: (action: string) => `Only the owner of this PennyPost can do this (${action}).` },
    adminOnly: { code: 1004, status: 403, message: (action: string) => `Only the owner of this PennyPost or an admin can do this (${action}); ask them.` },
  },
  'api',
);
