import { Type, type Static } from '@sinclair/typebox';
import { Shape } from '../api/result';
import { WEEKDAYS } from './config';

/** Result shape of notify.configure and notify.get (server/api/result.ts); the presenter is typed by it. */

const On = Type.Optional(Type.Literal(true));

export const ReminderEventsShape = Shape(
  'ReminderEvents',
  {
    budget80: On,
    budget100: On,
    billDue: Type.Optional(Shape('BillDue', { daysBefore: Type.Integer({ minimum: 0, maximum: 30, description: 'days before the date of a recurring bill (0: on the day)' }) })),
    goalReached: On,
    weeklySummary: Type.Optional(
      Shape('WeeklySummary', {
        weekday: Type.Union(WEEKDAYS.map((d) => Type.Literal(d))),
        hour: Type.Integer({ minimum: 0, maximum: 23, description: "hour of the day, this computer's time zone" }),
      }),
    ),
    syncProblem: On,
    backupProblem: On,
  },
  'The reminder events that are on: only those are present (`true`, or their settings); an absent event is off.',
);

export const ReminderSettingShape = Shape(
  'ReminderSetting',
  {
    configured: Type.Boolean({ description: 'false before notify.configure (then appId, appName and updatedAt are null and events is `{}`)' }),
    appId: Type.Union([Type.String(), Type.Null()], { description: 'the push app that sends the reminders' }),
    appName: Type.Union([Type.String(), Type.Null()], { description: "the push app's name; null before configuring, or when the app was deleted since" }),
    events: ReminderEventsShape,
    updatedAt: Type.Union([Type.Integer(), Type.Null()], { description: 'when the setting was last saved, ms' }),
  },
  'Your reminder setting: the push app and the events that are on.',
);
export type NotifyView = Static<typeof ReminderSettingShape>;
