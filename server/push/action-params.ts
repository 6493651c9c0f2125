import { Type } from '@sinclair/typebox';
import { Id } from '../api/params';
import { ID_MAX_LENGTH } from '../lib/ids';
import { NAME_MAX } from './schema';

/** The display name of a channel, an app or a recipient. */
export const Name = Type.String({ minLength: 1, maxLength: NAME_MAX, pattern: '\\S', hint: 'notBlank', description: 'Display name.' });

/** The id of a channel, app, recipient or push (the ids PennyPost makes, server/lib/ids.ts). */
export const TargetId = (description: string) => Id(description, ID_MAX_LENGTH);
