import { deliver } from '../deliver';
import type { SendContext } from './context';
import { messageOf } from './context';
import { failEveryone, outcomeOf, type PushOutcome } from './outcome';
import type { Plan } from './plan';

/** A delivery's outcome; an in-process channel shows the push only once it is recorded (`show`). */
export interface Delivered {
  outcome: PushOutcome;
  show?: () => void;
}

/** Delivers a planned push along its route. */
export async function deliverPush(ctx: SendContext, plan: Plan): Promise<Delivered> {
  switch (plan.route.kind) {
    case 'settled':
      return { outcome: plan.route.outcome };
    case 'inProcess':
      return inProcess(ctx, plan);
    case 'outbound':
      return { outcome: outcomeOf(await outbound(ctx, plan)) };
  }
}

/**
 * A channel inside this process (the desktop feed) cannot fail half way: every recipient is reached
 * once the push is shown, which happens after its history row is written (one disk write; a full disk
 * shows nothing, and a crash in between leaves a recorded push that the feed's list shows).
 */
function inProcess(ctx: SendContext, plan: Plan): Delivered {
  const results = plan.recipients.map((r) => ({ recipient: r.label, ...(r.name ? { name: r.name } : {}), ok: true, class: 'ok' as const, msgId: plan.id, attempts: 1 }));
  const show = () => {
    const delivery = ctx.links.get(plan.channel.type).delivery(plan.channel, plan.config, plan.driver.render(plan.message, plan.request.app));
    for (const recipient of plan.recipients) {
      delivery.send(recipient, ctx.app.settings.get().push.callTimeoutMs).catch((error: unknown) => {
        ctx.app.log.error('push: in-process delivery crashed', { pushId: plan.id, error: messageOf(error) });
      });
    }
  };
  return { outcome: outcomeOf(results), show };
}

/** Every recipient through the channel's driver, with retries, failover and the request's deadline (../deliver.ts). */
async function outbound(ctx: SendContext, plan: Plan) {
  const settings = ctx.app.settings.get().push;
  try {
    const payload = plan.driver.render(plan.message, plan.request.app);
    const delivery = ctx.links.get(plan.channel.type).delivery(plan.channel, plan.config, payload);
    return await deliver({
      targets: plan.recipients,
      mode: plan.request.app.pushMode === 'first' ? 'first' : 'all',
      concurrency: settings.concurrency,
      deadline: plan.deadline,
      callTimeoutMs: settings.callTimeoutMs,
      ...(delivery.prepare ? { prepare: delivery.prepare.bind(delivery) } : {}),
      send: (recipient, timeoutMs) => delivery.send(recipient, timeoutMs),
      ...(delivery.sendBatch ? { sendBatch: delivery.sendBatch.bind(delivery), batchMax: delivery.batchMax } : {}),
    });
  } catch (error) {
    // A bug, not a delivery outcome: still recorded, so the push is not lost.
    ctx.app.log.error('push: delivery crashed', { pushId: plan.id, error: messageOf(error) });
    return failEveryone(plan.recipients, `Internal error while delivering; quote push id ${plan.id} when reporting it.`);
  }
}
