/**
 * The message page (/m/{token}): title and desp, Markdown rendered by markdown-it with raw HTML
 * off, then passed through an allow-list sanitizer. Scripts, event handlers, styles and
 * javascript:/data: links never survive; the page is served under its own strict CSP with no
 * script source at all and one same-origin stylesheet.
 */

import { escapeHtml } from './html';
import { MarkdownPool } from './markdown-pool';

export { escapeHtml };

/** The page's own CSP: no scripts, no frames, no forms, images from anywhere on http(s). */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'none'",
  "style-src 'self'",
  "img-src 'self' data: https: http:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const PAGE_CSS_PATH = '/m/page.css';

export const PAGE_CSS = `:root{color-scheme:light dark;--fg:#1d1d1f;--muted:#6e6e73;--bg:#fff;--card:#f5f5f7;--accent:#0a66c2;--line:#d2d2d7}
@media (prefers-color-scheme:dark){:root{--fg:#f5f5f7;--muted:#a1a1a6;--bg:#111;--card:#1c1c1e;--accent:#4ea1ff;--line:#3a3a3c}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.6 -apple-system,BlinkMacSystemFont,"Segoe UI","PingFang SC","Microsoft YaHei",sans-serif}
main{max-width:760px;margin:0 auto;padding:24px 18px 48px}
header h1{font-size:1.5em;line-height:1.3;margin:0 0 6px;word-wrap:break-word}
.meta{color:var(--muted);font-size:.875em;margin:0 0 20px}
article{word-wrap:break-word;overflow-wrap:anywhere}
article img{max-width:100%;height:auto}
article pre{background:var(--card);padding:12px;border-radius:8px;overflow:auto}
article code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
article :not(pre)>code{background:var(--card);padding:1px 5px;border-radius:4px}
article blockquote{margin:0;padding:0 14px;border-left:4px solid var(--line);color:var(--muted)}
article table{border-collapse:collapse;display:block;overflow:auto}
article th,article td{border:1px solid var(--line);padding:6px 10px}
a{color:var(--accent)}
.empty{color:var(--muted)}
footer{margin-top:32px;color:var(--muted);font-size:.8em}
`;

/** `2026-11-28 18:42 (Asia/Shanghai)`: the app owner's wall clock, with the zone named (the reader may be elsewhere). */
function formatTime(ms: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(ms);
  const part = (type: 'year' | 'month' | 'day' | 'hour' | 'minute'): string => {
    const found = parts.find((p) => p.type === type);
    if (!found) throw new Error(`formatTime: the ${timeZone} time has no ${type}`);
    return found.value;
  };
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')} (${timeZone})`;
}

/** Loaded on the first message page, not at every start (markdown-it and sanitize-html with its HTML parser). */
let renderer: Promise<typeof import('./markdown-render')> | undefined;
let pool: MarkdownPool | undefined;

/** A push's Markdown as sanitized HTML; long texts are rendered off the server's thread (markdown-pool.ts). */
export async function renderMarkdown(text: string): Promise<string> {
  renderer ??= import('./markdown-render');
  const inline = (await renderer).renderMarkdown;
  pool ??= new MarkdownPool(inline);
  return pool.render(text);
}

export async function messagePage(message: { title: string; desp: string; appName: string; createdAt: number }, timeZone: string): Promise<string> {
  const body = message.desp.trim() ? await renderMarkdown(message.desp) : '<p class="empty">(no details)</p>';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(message.title)}</title>
<link rel="stylesheet" href="${PAGE_CSS_PATH}">
</head>
<body>
<main>
<header><h1>${escapeHtml(message.title)}</h1>
<p class="meta">${escapeHtml(message.appName)} · <time datetime="${new Date(message.createdAt).toISOString()}">${formatTime(message.createdAt, timeZone)}</time></p></header>
<article>
${body}
</article>
<footer>Sent through PennyPost</footer>
</main>
</body>
</html>
`;
}

export function missingPage(retentionDays: number): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>Message not available</title>
<link rel="stylesheet" href="${PAGE_CSS_PATH}">
</head>
<body>
<main>
<header><h1>Message not available</h1></header>
<p class="empty">This link is wrong, or the message was deleted: PennyPost keeps messages for ${retentionDays} days.</p>
</main>
</body>
</html>
`;
}
