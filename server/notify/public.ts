/**
 * What other domains use of notify beside app.services.notify: the message helpers reminders are
 * written with, the notifier's types, and what the weekly summary asks of the planning domain.
 */
export { escapeMd, messageLanguage, moneyText, type MessageLanguage } from './messages';
export type { Notifier, NotifyMessage } from './types';
export type { BudgetFigure, PlanningQueries, UpcomingOccurrence } from './planning-queries';
