import { Type } from '@sinclair/typebox';
import { defineAction, defineActions, Params } from '../api/action';
import { Id, OneOf } from '../api/params';
import { commonErrors } from '../lib/errors';
import { ID_MAX_LENGTH } from '../lib/ids';
import { WEEKDAYS } from './config';
import { notifyErrors } from './errors';
import { ReminderSettingShape } from './result-shapes';

const Flag = (description: string) => Type.Optional(Type.Boolean({ description }));

const configure = defineAction({
  summary: 'Choose the push app that sends your reminders and which events it sends; the whole setting is replaced.',
  notes:
    '`events`: `budget80` and `budget100` (a budget reached 80 % / 100 % of its month), `billDue: {daysBefore: 0–30}` (recurring expenses coming up), ' +
    '`goalReached` (a savings goal reached its target, also one completed on another device), `weeklySummary: {weekday: MO…SU, hour: 0–23}` ' +
    '(spending against budgets and the bills of the next 7 days), `syncProblem` (sync stopped with an error, or could not reach its server for 30 minutes), ' +
    '`backupProblem` (the automatic daily snapshot failed; sent to the owner and admins only). ' +
    'Each event is sent at most once per occurrence (a budget and month, a bill and date, a goal, an ISO week, a sync problem, a failed snapshot), ' +
    'also across restarts. An event that is absent or false is off. The setting and what was sent are kept on this computer only, never synced: ' +
    'push apps do not sync, so only the PennyPost where this is set sends reminders. The weekly summary is sent on `weekday` from `hour` ' +
    "(0–23, this computer's time zone) until the end of that day.",
  auth: 'user',
  params: Params({
    appId: Id('One of your push apps (push.queryApps).', ID_MAX_LENGTH),
    events: Type.Object(
      {
        budget80: Flag('A budget reached 80 % of the month.'),
        budget100: Flag('A budget is used up (100 %).'),
        billDue: Type.Optional(
          Type.Object(
            { daysBefore: Type.Integer({ minimum: 0, maximum: 30, description: 'Days before the date of a recurring bill (0: on the day).' }) },
            { additionalProperties: false, description: 'Bills (recurring expenses) coming up.' },
          ),
        ),
        goalReached: Flag('A savings goal reached its target.'),
        weeklySummary: Type.Optional(
          Type.Object(
            {
              weekday: OneOf(WEEKDAYS, { description: 'Day of the week, MO…SU.' }),
              hour: Type.Integer({ minimum: 0, maximum: 23, description: "Hour of the day (this computer's time zone)." }),
            },
            { additionalProperties: false, description: 'Spending against budgets and the coming bills, once a week.' },
          ),
        ),
        syncProblem: Flag('Sync stopped with an error, or could not reach its server for 30 minutes.'),
        backupProblem: Flag('The automatic daily snapshot failed.'),
      },
      { additionalProperties: false, description: 'The events that are on.' },
    ),
  }),
  result: ReminderSettingShape,
  errors: [
    [commonErrors.rows.invalid, 'a bad field (daysBefore outside 0–30, hour outside 0–23, an unknown weekday or event)'],
    [notifyErrors.rows.appNotFound, 'appId is not one of your push apps'],
  ],
  handler: (params, ctx) => ctx.app.services.notify.configure(ctx.user.id, params),
});

const get = defineAction({
  summary: 'Your reminder setting: the push app and the events that are on.',
  auth: 'user',
  params: Params({}),
  result: ReminderSettingShape,
  handler: (_params, ctx) => ctx.app.services.notify.get(ctx.user.id),
});

/** notify.configure / notify.get (docs/budgets.md, "Reminders"). */
export const notifyActions = defineActions({ 'notify.configure': configure, 'notify.get': get });
