import type { DesktopMessage } from '../server/push/desktop';

export interface NativeNotification {
  title: string;
  subtitle?: string;
  body: string;
}

/** Markdown-ish push text as one calm line of plain text for a notification body. */
export function plainText(markdown: string, max = 180): string {
  const text = markdown
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]*>/g, ' ')
    .replace(/[#>*_`~|]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function notificationFor(message: DesktopMessage): NativeNotification {
  const title = message.title.trim() || message.appName || 'PennyPost';
  return { title: title.slice(0, 120), subtitle: message.appName || undefined, body: plainText(message.desp) };
}

/**
 * Where a click on the notification goes: the message page on our own server. The push carries
 * `/m/<token>` (or an absolute URL when a public base URL is set, e.g. a reverse proxy): the
 * window always opens it on the local origin. Anything else (a test push) opens the app itself.
 */
export function messagePageUrl(messageUrl: string, appOrigin: string): string {
  try {
    const url = new URL(messageUrl || '/', appOrigin);
    if (/^\/m\/[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)?$/.test(url.pathname)) return `${appOrigin}${url.pathname}`;
  } catch {
    // fall through
  }
  return `${appOrigin}/`;
}
