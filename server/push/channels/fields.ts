import { Type } from '@sinclair/typebox';

/**
 * Config fields that several channel types share by name. Two drivers may only share a field name
 * with the same schema (./index.ts refuses anything else), so shared ones are defined once here;
 * each driver gives its own description.
 */

/** The incoming-webhook URL a robot or chat service hands out (WeCom, DingTalk, Feishu, Slack, Discord). */
export const webhookUrlField = (description: string, example: string) => Type.String({ maxLength: 2048, description, examples: [example] });

/** A signing secret or similar credential the channel keeps sealed (DingTalk, Feishu). */
export const signingSecretField = (description: string) => Type.Optional(Type.String({ maxLength: 256, description }));
