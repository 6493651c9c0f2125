import { pushErrors } from './errors';
import { textField } from './send/answer';

/**
 * The options every push carries beside its title and text, whichever /send form it came through:
 * how urgent it is and which thread it belongs to. Each channel driver maps them to its own notion
 * (docs/push.md "Priority and group").
 */
export const PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export type Priority = (typeof PRIORITIES)[number];

/** Longest `group` (a thread or group name on channels that have them). */
export const GROUP_MAX = 64;

/** ntfy's 1–5 scale, which scripts already use: 1–2 low, 3 normal, 4 high, 5 urgent. */
const BY_NUMBER: Partial<Record<string, Priority>> = { '1': 'low', '2': 'low', '3': 'normal', '4': 'high', '5': 'urgent' };
/** Other words scripts send (ntfy's and Bark's). */
const ALIASES: Partial<Record<string, Priority>> = {
  min: 'low',
  default: 'normal',
  max: 'urgent',
  passive: 'low',
  active: 'normal',
  timesensitive: 'high',
  critical: 'urgent',
};

export interface MessageOptions {
  priority: Priority;
  /** '' = none. */
  group: string;
}

/** Reads `priority` (low/normal/high/urgent, ntfy's 1–5 or its words; '' = normal) of a /send request. */
export function priorityOf(input: Record<string, unknown>): Priority {
  const raw = textField(input, 'priority');
  if (raw === undefined) return 'normal';
  const value = raw.trim().toLowerCase();
  if (value === '') return 'normal';
  if ((PRIORITIES as readonly string[]).includes(value)) return value as Priority;
  const known = BY_NUMBER[value] ?? ALIASES[value];
  if (known) return known;
  throw pushErrors.badPriority(raw.slice(0, 32)).at('priority');
}

/** Reads `group` of a /send request (trimmed; '' = none). */
export function groupOf(input: Record<string, unknown>): string {
  const value = (textField(input, 'group') ?? '').trim();
  if (value.length > GROUP_MAX) throw pushErrors.groupTooLong(GROUP_MAX, value.length).at('group');
  return value;
}

export function messageOptionsOf(input: Record<string, unknown>): MessageOptions {
  return { priority: priorityOf(input), group: groupOf(input) };
}
