import type { AppContext } from '../../app-context';
import type { ScheduledEntry } from '../scheduled';
import type { SendContext } from './context';
import { sendNow } from './pipeline';

/**
 * Sends a scheduled push that is due (already marked as being sent): to the app's channel and
 * recipients as they are now, through the same pipeline as /send. One that cannot be sent (account
 * disabled, app deleted) becomes a failed history row saying why; a deleted account's pushes were
 * dropped with it.
 */
export async function sendDuePush(ctx: SendContext, entry: ScheduledEntry): Promise<void> {
  const services: Partial<AppContext['services']> = ctx.app.services;
  const user = services.users ? await services.users.findById(entry.userId) : null;
  if (services.users && !user) return;
  if (user?.disabled) {
    await recordUnsentPush(ctx, entry, 'Not sent: the account was disabled when this scheduled push was due.');
    return;
  }
  const app = ctx.targets.get(entry.appId);
  if (!app || app.kind !== 'app' || app.userId !== entry.userId) {
    await recordUnsentPush(ctx, entry, `Not sent: the app "${entry.appName}" was deleted before this scheduled push was due.`);
    return;
  }
  if (!ctx.targets.get(app.channelId)) {
    await recordUnsentPush(ctx, entry, `Not sent: the app "${app.name}" has no channel (it was deleted).`);
    return;
  }
  await sendNow(ctx, { app, title: entry.title, desp: entry.desp, options: { priority: entry.priority, group: entry.group }, caller: entry.caller, id: entry.id });
}

/** A scheduled push that is not sent: a failed history row with no recipients and the reason. */
export async function recordUnsentPush(ctx: SendContext, entry: ScheduledEntry, summary: string): Promise<void> {
  const app = ctx.targets.get(entry.appId);
  const channel = app ? ctx.targets.get(app.channelId) : undefined;
  const now = Math.max(entry.at, ctx.app.clock.now());
  await ctx.history.finish(
    {
      id: entry.id,
      userId: entry.userId,
      appId: entry.appId,
      appName: entry.appName,
      channelId: channel?.id ?? '',
      channelType: channel?.type ?? '',
      title: entry.title,
      desp: entry.desp,
      status: 'failed',
      summary,
      total: 0,
      success: 0,
      failed: 0,
      results: [],
      caller: entry.caller,
      createdAt: now,
      finishedAt: now,
    },
    false,
  );
}
