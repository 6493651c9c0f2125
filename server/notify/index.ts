import { defineDomain } from '../domain';
import { notifyActions } from './actions';
import { notifyErrors } from './errors';
import { PushNotifier } from './notifier';

declare module '../app-context' {
  interface ServiceMap {
    notify: PushNotifier;
  }
}

/** Reminders and alerts through the person's own push apps (docs/budgets.md, "Reminders"). */
export function notifyDomain() {
  let notifier: PushNotifier | undefined;
  return defineDomain({
    name: 'notify',
    needs: ['users', 'push'],
    uses: ['savings', 'sync', 'planning'],
    errors: notifyErrors,
    actions: notifyActions,
    start(app) {
      notifier = new PushNotifier(app);
      app.services.notify = notifier;
      notifier.start();
    },
    async forgetUser(_app, userId) {
      await notifier?.forgetUser(userId);
    },
    async stop() {
      await notifier?.stop();
    },
  });
}
