import type { DesktopMessage } from './desktop';
import { renderMarkdown } from './page';
import type { FeedItemView } from './result-shapes';

/**
 * One message of the desktop feed as the UI gets it, live (GET /events/push) or from the history
 * (push.recentFeed): the Markdown `desp` and `html`, the same sanitised HTML the message page shows.
 */
export type FeedItem = FeedItemView;

/** A message reaches every open window of its user: it is rendered once. */
const rendered = new WeakMap<DesktopMessage, Promise<string>>();

export function feedHtml(desp: string): Promise<string> {
  return desp.trim() ? renderMarkdown(desp) : Promise.resolve('');
}

export async function feedItem(message: DesktopMessage): Promise<FeedItem> {
  let html = rendered.get(message);
  if (!html) {
    html = feedHtml(message.desp);
    rendered.set(message, html);
  }
  return {
    id: message.id,
    appId: message.appId,
    appName: message.appName,
    title: message.title,
    desp: message.desp,
    html: await html,
    url: message.url,
    createdAt: message.createdAt,
  };
}
