import type { SendContext } from './context';
import { messageOf } from './context';
import { failEveryone, NOTHING_SENT, storageError, type PushOutcome } from './outcome';
import { historyRow, sendData, type Plan } from './plan';

/**
 * Writes the push's history row (fsynced, before the answer leaves), then drops its journal entry.
 * When the disk refuses it: an in-process push was not shown yet, so nothing was sent; any other
 * was delivered, and the answer says the history is missing.
 */
export async function recordPush(ctx: SendContext, plan: Plan, outcome: PushOutcome): Promise<void> {
  const outbound = plan.route.kind === 'outbound';
  const finishedAt = outbound ? Math.max(plan.now, ctx.app.clock.now()) : plan.now;
  try {
    await ctx.history.finish(historyRow(plan, outcome, finishedAt), outbound);
  } catch (error) {
    ctx.app.log.error('push: history write failed', { pushId: plan.id, error: messageOf(error) });
    if (plan.route.kind === 'inProcess') throw storageError(error, NOTHING_SENT).with({ ...sendData(plan, failEveryone(plan.recipients, NOTHING_SENT, 0)) });
    const data = sendData(plan, outcome.results);
    const message =
      data.total > 0
        ? `Delivered to ${data.success} of ${data.total} recipients, but PennyPost could not save the message history (is the disk full or read-only?).`
        : 'PennyPost could not save the message history (is the disk full or read-only?).';
    throw storageError(error, message).with({ ...data });
  }
  if (outbound) {
    ctx.app.log.debug('push', {
      pushId: plan.id,
      app: plan.request.app.id,
      status: outcome.status,
      total: outcome.results.length,
      ms: Math.round(performance.now() - plan.started),
    });
  }
}
