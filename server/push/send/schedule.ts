import { DomainError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { ScheduledPushes } from '../scheduled';
import { answer, type SendAnswer } from './answer';
import type { PushRequest, SendContext } from './context';
import { messageOf } from './context';
import { storageError } from './outcome';

/** Stores a push for later (docs/push.md "Scheduled pushes"); the answer is ServerChan's success (code 0) with `scheduled: true`. */
export async function schedulePush(ctx: SendContext, scheduled: ScheduledPushes, push: PushRequest, at: number): Promise<SendAnswer> {
  // Named by its due time, so the history row it becomes sorts and expires with the pushes sent then.
  const id = newId(at);
  const { app } = push;
  try {
    await scheduled.add({
      id,
      userId: app.userId,
      appId: app.id,
      appName: app.name,
      title: push.title,
      desp: push.desp,
      ...push.options,
      caller: push.caller.slice(0, 64),
      createdAt: ctx.app.clock.now(),
      at,
    });
  } catch (error) {
    if (error instanceof DomainError) throw error;
    ctx.app.log.error('push: storing a scheduled push failed', { error: messageOf(error) });
    throw storageError(error, 'PennyPost could not store the scheduled push (is the disk full or read-only?), so nothing was scheduled. Try again.');
  }
  return answer(200, 0, `Scheduled for ${new Date(at).toISOString()}.`, { pushId: id, scheduled: true, at });
}
