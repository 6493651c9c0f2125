import { liveService, optionalService } from '../app-context';
import { defineDomain } from '../domain';
import { pushActions } from './actions';
import { pushErrors } from './errors';
import { mountPushRoutes } from './routes';
import { pushCollections } from './schema';
import { ChangeNotices } from './change-notices';
import { DesktopHub } from './desktop';
import { PushService, type PushOptions } from './service';

const PRUNE_EVERY_MS = 60 * 60 * 1000;

/** The push webhook: channels, apps, recipients, /send, delivery, history, message pages, desktop feed. */
export function pushDomain(options: PushOptions = {}) {
  let timer: NodeJS.Timeout | undefined;
  // The desktop feed outlives the service: a snapshot restore restarts the domain, and the
  // desktop shell's native notifications stay subscribed to this one hub.
  const desktop = new DesktopHub();
  const changes = new ChangeNotices();
  return defineDomain({
    name: 'push',
    needs: ['users'],
    collections: pushCollections,
    errors: pushErrors,
    actions: pushActions,
    async start(app) {
      const push = new PushService(app, { ...options, desktop, changes });
      await push.start();
      app.services.push = push;
      timer = setInterval(() => {
        push.prune().catch((error: unknown) => app.log.warn('push: pruning history failed', { error: (error as Error).message }));
      }, PRUNE_EVERY_MS);
      timer.unref();
    },
    routes(router, app) {
      // Mounted once; the service changes with a snapshot restore (liveService).
      mountPushRoutes(router, app, liveService(app, 'push'));
    },
    async forgetUser(app, userId) {
      await app.services.push.scheduled.forgetUser(userId);
    },
    async stop(app) {
      if (timer) clearInterval(timer);
      // Set by start; stop does not count on it having got that far.
      await optionalService(app, 'push')?.stop();
    },
  });
}
