import type { ServiceMap } from '../app-context';
import { defineDomain } from '../domain';
import { userActions } from './actions';
import { usersCollection } from './schema';
import { usersErrors } from './errors';
import { UserService } from './service';
import { HouseholdService } from './household';

const PRUNE_EVERY_MS = 60 * 60 * 1000;

/** Accounts, sign-in, sessions. */
export function usersDomain() {
  let timer: NodeJS.Timeout | undefined;
  return defineDomain({
    name: 'users',
    collections: [usersCollection],
    errors: usersErrors,
    actions: userActions,
    async start(app) {
      const users = new UserService(app);
      app.services.users = users;
      app.services.household = new HouseholdService(app, users);
      await users.start();
      await users.sessions.pruneExpired();
      timer = setInterval(() => void users.sessions.pruneExpired().catch(() => undefined), PRUNE_EVERY_MS);
      timer.unref();
    },
    stop(app) {
      const { users } = app.services as Partial<ServiceMap>; // unset when start failed early
      users?.stop();
      if (timer) clearInterval(timer);
    },
  });
}
