import { errorCatalogue } from '../lib/errors';

/** What an authenticator answers, as far as the wrappers need it: the signed-in account. */
export interface SignedInCaller {
  readonly user: { readonly mustChangePassword: boolean };
}

/** The sign-in errors the wrappers answer themselves (/api and the routes outside it). */
export const signInErrors = errorCatalogue({
  mustChangePassword: { code: 403, status: 403, message: () => 'Choose a new password first (user.changePassword): your password was reset by the owner.' },
});

/**
 * An account whose password the owner reset may only choose a new one: the /api router lets the
 * few actions marked `duringPasswordChange` through, every route outside /api refuses it.
 */
export function refusePendingPasswordChange(caller: SignedInCaller): void {
  if (caller.user.mustChangePassword) throw signInErrors.mustChangePassword().with({ mustChangePassword: true });
}
