import { errorCatalogue } from '../lib/errors';

/**
 * The push domain's errors: /api actions and the /send webhook. Each row is an HTTP-like code
 * with its status. A channel driver's own config and address checks are one-off 400s
 * (`commonErrors.invalid`), so that adding a channel adds no row here.
 */
export const pushErrors = errorCatalogue(
  {
    channelNotFound: { code: 404, status: 404, message: () => 'Channel not found.' },
    appNotFound: { code: 404, status: 404, message: () => 'App not found.' },
    recipientNotFound: { code: 404, status: 404, message: () => 'Recipient not found.' },
    messageNotFound: { code: 404, status: 404, message: () => 'Message not found.' },
    /** A stored document vanished between the lookup and the write. */
    itemNotFound: { code: 404, status: 404, message: () => 'Item not found.' },
    unknownAppKey: {
      code: 404,
      status: 404,
      message: () => 'Unknown app key: no app has this key (it may have been reset or deleted). Nothing was sent.',
    },

    tooManyChannels: { code: 400, status: 400, message: (max: number) => `You already have ${max} channels, the most PennyPost keeps per account.` },
    tooManyApps: { code: 400, status: 400, message: (max: number) => `You already have ${max} apps, the most PennyPost keeps per account.` },
    tooManyRecipients: { code: 400, status: 400, message: (max: number) => `This app already has ${max} recipients, the most PennyPost keeps per app.` },

    typeIsFixed: {
      code: 400,
      status: 400,
      message: (type: string) => `A channel's type cannot change (this one is ${type}); create a new channel instead.`,
    },
    configDoesNotApply: {
      code: 400,
      status: 400,
      message: (key: string, type: string, takes: readonly string[]) => `params.config.${key} does not apply to a ${type} channel (it takes ${takes.join(', ') || 'no settings'})`,
    },
    secretMustBeEnteredAgain: {
      code: 400,
      status: 400,
      message: (secret: string, key: string, movedBy: readonly string[]) =>
        `Enter the ${secret} again: it is kept only for the address it was entered for. This change sends the channel somewhere else ` +
        `(params.config.${movedBy.join(' or ')}), so send params.config.${key} with it, or create a new channel.`,
    },
    channelInUse: {
      code: 409,
      status: 409,
      message: (apps: readonly string[]) =>
        `This channel is used by ${apps.length} app${apps.length === 1 ? '' : 's'} (${apps
          .slice(0, 3)
          .map((name) => `"${name}"`)
          .join(', ')}${apps.length > 3 ? ', …' : ''}); ` + 'delete them or move them to another channel first.',
    },
    recipientsNeedTheirChannelType: {
      code: 400,
      status: 400,
      message: (from: string, to: string) =>
        `This app has recipients for a ${from} channel; a ${to} channel needs other addresses. Remove the recipients first, or pick a ${from} channel.`,
    },
    templateIdRequired: {
      code: 400,
      status: 400,
      message: () => "params.templateId is required for template messages: the template ID from the Official Account's template list",
    },
    recipientExists: { code: 409, status: 409, message: () => 'This address is already a recipient of the app.' },

    startAfterEnd: { code: 400, status: 400, message: () => 'params.startDate is after params.endDate' },

    // /send
    titleRequired: { code: 400, status: 400, message: () => 'title is required (the "text" field is accepted as its alias).' },
    titleTooLong: { code: 400, status: 400, message: (max: number, length: number) => `title is longer than ${max} characters (${length}).` },
    despTooLong: { code: 400, status: 400, message: (max: number, length: number) => `desp is longer than ${max} characters (${length}).` },
    fieldRepeated: { code: 400, status: 400, message: (name: string) => `"${name}" was given more than once; send it once.` },
    fieldNotText: { code: 400, status: 400, message: (name: string) => `"${name}" must be text.` },
    badPriority: {
      code: 400,
      status: 400,
      message: (given: string) => `priority "${given}" is not one PennyPost knows: use low, normal, high or urgent (or 1–5 as ntfy counts).`,
    },
    groupTooLong: { code: 400, status: 400, message: (max: number, length: number) => `group is longer than ${max} characters (${length}).` },

    // scheduled pushes (docs/push.md "Scheduled pushes")
    badScheduleTime: {
      code: 400,
      status: 400,
      message: (field: string, given: string) =>
        `${field} "${given}" is not a time PennyPost reads: use Unix seconds or milliseconds, an ISO 8601 time with its offset (2026-11-23T10:00:00+08:00), ` +
        'or a wait like 90, 30s, 10m, 2h, 1d. Nothing was sent.',
    },
    atAndDelay: { code: 400, status: 400, message: () => 'Give either at or delay, not both. Nothing was sent.' },
    scheduleInPast: { code: 400, status: 400, message: (when: string) => `The time ${when} is in the past. Nothing was sent.` },
    scheduleTooFar: { code: 400, status: 400, message: (days: number) => `A push can be scheduled at most ${days} days ahead. Nothing was sent.` },
    tooManyScheduled: {
      code: 400,
      status: 400,
      message: (max: number) => `You already have ${max} scheduled pushes waiting, the most PennyPost keeps per account. Nothing was sent.`,
    },
    scheduledNotFound: { code: 404, status: 404, message: () => 'Scheduled push not found.' },
    scheduledAlreadySent: {
      code: 409,
      status: 409,
      message: () => 'This scheduled push is being sent or was already sent; it can no longer be cancelled (see push.getMessage).',
    },
  },
  'push',
);
