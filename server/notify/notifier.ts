import type { AppContext } from '../app-context';
import type { EmitOutcome, Notifier, NotifyEvent, NotifyMessage } from './types';

/** Sends each reminder once through the person's chosen push app (configuration and markers in the local store). */
export class PushNotifier implements Notifier {
  constructor(readonly app: AppContext) {}

  start(): void {
    // timers (weekly summary) start here
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }

  emit(_userId: string, _event: NotifyEvent, _key: string, _message: NotifyMessage): Promise<EmitOutcome> {
    return Promise.resolve('off');
  }

  wants(_userId: string, _event: NotifyEvent): Promise<boolean> {
    return Promise.resolve(false);
  }
}
