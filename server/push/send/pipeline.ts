import { commonErrors } from '../../lib/errors';
import { messageOptionsOf } from '../message-options';
import type { ScheduledPushes } from '../scheduled';
import type { TargetDoc } from '../schema';
import { admitSend, type SendLimits } from './admit';
import { answer, answerOfError, withReadKey, type SendAnswer } from './answer';
import type { PushRequest, SendContext } from './context';
import { deliverPush } from './deliver';
import { journalPush } from './journal';
import type { PushOutcome } from './outcome';
import { planPush, sendData, type Plan } from './plan';
import { recordPush } from './record';
import { schedulePush } from './schedule';

/**
 * The webhook (/send and every drop-in form of it, docs/push.md): admit the request (rate limits,
 * fields, app key), then schedule it or send it now. Refusals and failures are answered from the
 * error catalogues. The drop-in forms shape this answer afterwards (./dropin/), from it alone.
 */
export async function sendWebhook(
  ctx: SendContext,
  gate: { limits: SendLimits; scheduled: ScheduledPushes },
  appKey: string,
  input: Record<string, unknown>,
  caller: string,
): Promise<SendAnswer> {
  try {
    const { push, schedule } = await admitSend(ctx, gate.limits, appKey, input, caller);
    const result = schedule ? await schedulePush(ctx, gate.scheduled, push, schedule.at) : await sendNow(ctx, push);
    return withReadKey(result, ctx.pages);
  } catch (error) {
    return answerOfError(error);
  }
}

/**
 * One push, now: plan → journal → deliver → record, then the answer. Each step throws a catalogue
 * error when the push cannot go on (no channel, a refused journal or history write), answered here.
 */
export async function sendNow(ctx: SendContext, push: PushRequest): Promise<SendAnswer> {
  try {
    const plan = planPush(ctx, push);
    await journalPush(ctx, plan);
    const { outcome, show } = await deliverPush(ctx, plan);
    await recordPush(ctx, plan, outcome);
    show?.();
    return answerOf(plan, outcome);
  } catch (error) {
    return answerOfError(error);
  }
}

/** Code 0 when something was delivered (or there was no one to deliver to); 500 when nothing was, with the whole result. */
function answerOf(plan: Plan, outcome: PushOutcome): SendAnswer {
  const data = sendData(plan, outcome.results);
  if (outcome.status === 'failed') return answerOfError(commonErrors.internal(outcome.summary).with({ ...data }));
  return answer(200, 0, outcome.summary, data);
}

/**
 * A push that PennyPost itself sends as one of the account's apps (reminders, server/notify/):
 * delivered at once exactly like /send (channel, recipients, history row, delivery classes),
 * without the webhook's rate limits. A title over the limit is cut, the body too.
 */
export function sendAsApp(ctx: SendContext, app: TargetDoc, message: { title: string; desp: string }, caller: string): Promise<SendAnswer> {
  const settings = ctx.app.settings.get().push;
  const cut = (text: string, max: number) => (text.length > max ? text.slice(0, Math.max(0, max - 1)) + '…' : text);
  return sendNow(ctx, { app, title: cut(message.title, settings.titleMaxLength), desp: cut(message.desp, settings.despMaxLength), options: messageOptionsOf({}), caller });
}
