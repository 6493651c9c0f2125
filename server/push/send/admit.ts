import { RateLimit } from '../../http/rate-limit';
import type { AppContext } from '../../app-context';
import { pushErrors } from '../errors';
import { isAppKeyShape } from '../keys';
import { messageOptionsOf } from '../message-options';
import { scheduleOf, type Schedule } from '../schedule-time';
import { textField } from './answer';
import type { PushRequest, SendContext } from './context';

/** The webhook's two rate limits (settings push.sendPerAppKey, push.sendPerAddress), following the settings. */
export class SendLimits {
  readonly perAppKey: RateLimit;
  readonly perAddress: RateLimit;

  constructor(settings: AppContext['settings']) {
    const limits = settings.get().push;
    this.perAppKey = new RateLimit('pushes per app key', limits.sendPerAppKey);
    this.perAddress = new RateLimit('pushes per caller address', limits.sendPerAddress);
    settings.onChange((next) => {
      this.perAppKey.setPoints(next.push.sendPerAppKey);
      this.perAddress.setPoints(next.push.sendPerAddress);
    });
  }
}

/** A /send request that passed: the push, and when it is due if it was sent for later. */
export interface Admitted {
  push: PushRequest;
  schedule?: Schedule;
}

/**
 * The first step of /send: the caller's rate limit, then the fields (validation comes before any
 * lookup, seed §1), then the app key and its rate limit. Refusals are thrown from the catalogues.
 */
export async function admitSend(ctx: SendContext, limits: SendLimits, appKey: string, input: Record<string, unknown>, caller: string): Promise<Admitted> {
  await limits.perAddress.consumeAddress(caller);
  const { title, desp } = textOf(input, ctx.app.settings.get().push);
  const options = messageOptionsOf(input);
  const schedule = scheduleOf(input, ctx.app.clock.now());
  const app = isAppKeyShape(appKey) ? ctx.targets.appByKey(appKey) : undefined;
  if (!app) throw pushErrors.unknownAppKey();
  await limits.perAppKey.consume(app.id);
  return { push: { app, title, desp, options, caller }, ...(schedule ? { schedule } : {}) };
}

/** Title and desp of a /send request, checked against the settings' lengths. */
function textOf(input: Record<string, unknown>, limits: { titleMaxLength: number; despMaxLength: number }): { title: string; desp: string } {
  // `text` is ServerChan's old name; an empty `title` next to a filled `text` does not hide it.
  const named = textField(input, 'title');
  const title = named !== undefined && named.trim() !== '' ? named : (textField(input, 'text') ?? named ?? '');
  const desp = textField(input, 'desp') ?? '';
  if (title.trim() === '') throw pushErrors.titleRequired().at('title');
  if (title.length > limits.titleMaxLength) throw pushErrors.titleTooLong(limits.titleMaxLength, title.length).at('title');
  if (desp.length > limits.despMaxLength) throw pushErrors.despTooLong(limits.despMaxLength, desp.length).at('desp');
  return { title, desp };
}
