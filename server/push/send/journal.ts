import type { SendContext } from './context';
import { messageOf } from './context';
import { failEveryone, NOTHING_SENT, storageError } from './outcome';
import { pushFacts, sendData, type Plan } from './plan';

/**
 * Before anything leaves the machine, the push is journaled (docs/push.md §5): if PennyPost stops
 * during delivery, the next start records it as failed with an unknown outcome. When the journal
 * cannot be written nothing is sent, and every recipient fails as `systemic`. Pushes that do not
 * leave (settled, in-process) have no journal entry.
 */
export async function journalPush(ctx: SendContext, plan: Plan): Promise<void> {
  if (plan.route.kind !== 'outbound') return;
  try {
    await ctx.history.begin({ ...pushFacts(plan), recipients: plan.recipients.map((r) => ({ label: r.label, ...(r.name ? { name: r.name } : {}) })) });
  } catch (error) {
    ctx.app.log.error('push: history journal failed', { pushId: plan.id, error: messageOf(error) });
    throw storageError(error, NOTHING_SENT).with({ ...sendData(plan, failEveryone(plan.recipients, NOTHING_SENT, 0)) });
  }
}
