import { optionalService } from '../app-context';
import { defineDomain } from '../domain';
import { userActions } from './actions';
import { localeActions } from './locale-actions';
import { moveUsersToLocalStore } from './move-to-local-store';
import { usersErrors } from './errors';
import { UserService } from './service';
import { HouseholdService } from './household';

const PRUNE_EVERY_MS = 60 * 60 * 1000;

/** Accounts, sign-in, sessions. Accounts live in the local store (user-store.ts): this domain has no RxDB collection. */
export function usersDomain() {
  let timer: NodeJS.Timeout | undefined;
  return defineDomain({
    name: 'users',
    errors: usersErrors,
    actions: { ...userActions, ...localeActions },
    async start(app) {
      // A data dir from before the move still has the RxDB collection `users`: its accounts come over first.
      await moveUsersToLocalStore(app.db, app.log);
      const users = new UserService(app);
      app.services.users = users;
      app.services.household = new HouseholdService(app, users);
      await users.start();
      await users.sessions.pruneExpired();
      timer = setInterval(() => void users.sessions.pruneExpired().catch(() => undefined), PRUNE_EVERY_MS);
      timer.unref();
    },
    stop(app) {
      const users = optionalService(app, 'users'); // unset when start failed early
      users?.stop();
      if (timer) clearInterval(timer);
    },
  });
}
