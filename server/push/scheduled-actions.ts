import { Type } from '@sinclair/typebox';
import { defineAction, Params } from '../api/action';
import { Page, PageSize } from '../api/params';
import { TargetId } from './action-params';
import { pushErrors } from './errors';
import { ScheduledCancelled, ScheduledList } from './result-shapes';
import { SCHEDULED_PER_USER } from './scheduled';

/** Scheduled pushes (docs/push.md "Scheduled pushes"): the ones waiting, and cancelling one. */
const queryScheduled = defineAction({
  summary: 'Your scheduled pushes that are still waiting, soonest first, with paging.',
  notes:
    'A push is scheduled with `at` or `delay` on any /send form. Once sent it leaves this list and appears in push.queryMessages under the same id. ' +
    `At most ${SCHEDULED_PER_USER} wait per account. \`sending: true\` while it is being delivered (it can no longer be cancelled).`,
  auth: 'user',
  params: Params({ page: Type.Optional(Page()), pageSize: Type.Optional(PageSize(100, 20)) }),
  result: ScheduledList,
  handler: (params, ctx) => ctx.app.services.push.queryScheduled(ctx.user.id, params.page ?? 1, params.pageSize ?? 20),
});

const cancelScheduled = defineAction({
  summary: 'Cancel a scheduled push that has not been sent yet; nothing is recorded in the history.',
  auth: 'user',
  params: Params({ id: TargetId('Scheduled push id (data.pushId of the /send answer).') }),
  result: ScheduledCancelled,
  errors: [
    [pushErrors.rows.scheduledNotFound, 'no scheduled push with this id in your account'],
    [pushErrors.rows.scheduledAlreadySent, 'it is being sent or was already sent (see push.getMessage)'],
  ],
  handler: (params, ctx) => ctx.app.services.push.cancelScheduled(ctx.user.id, params.id),
});

export const scheduledActions = {
  'push.queryScheduled': queryScheduled,
  'push.cancelScheduled': cancelScheduled,
};
