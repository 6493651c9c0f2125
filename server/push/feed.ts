import type { DesktopMessage } from './desktop';
import { renderMarkdown } from './page';

/**
 * One message of the desktop feed as the UI gets it, live (GET /events/push) or from the history
 * (push.recentFeed): the Markdown `desp` and `html`, the same sanitised HTML the message page shows.
 */
export interface FeedItem {
  id: string;
  appId: string;
  appName: string;
  title: string;
  desp: string;
  /** `desp` rendered from Markdown through the message page's allow-list ('' when desp is blank). */
  html: string;
  url: string;
  createdAt: number;
}

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
