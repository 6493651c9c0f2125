/**
 * The window shown when PennyPost cannot start: most often the data dir is locked by another
 * PennyPost (a headless server, or a copy started by another user account on the same folder).
 * A static page (no script, strict CSP); its two buttons are links the shell intercepts.
 */
export type StartErrorKind = 'locked' | 'keys' | 'failed';

export interface StartErrorPage {
  kind: StartErrorKind;
  title: string;
  html: string;
}

// Plain https links on a reserved name (.invalid never resolves): Chromium reports them to
// 'will-navigate' like any link, and the shell turns them into actions before anything loads.
export const ACTION_RETRY = 'https://pennypost.invalid/retry';
export const ACTION_QUIT = 'https://pennypost.invalid/quit';
export const ACTION_FOLDER = 'https://pennypost.invalid/folder';

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function startErrorPage(kind: StartErrorKind, message: string, dataDir: string): StartErrorPage {
  const title = kind === 'locked' ? 'PennyPost is already running on this data' : kind === 'keys' ? 'PennyPost cannot open its keys' : 'PennyPost could not start';
  const hints =
    kind === 'locked'
      ? [
          'Another PennyPost process has this data folder open: a headless server (<code>npm run serve</code>), or PennyPost started by another user account.',
          'Stop that one, then choose <b>Try again</b>. If it is a server you want to keep, open its address in your browser instead.',
        ]
      : kind === 'keys'
        ? ['The keys in the data folder are protected by the operating system keychain and could not be opened.']
        : ['Details are below. If the problem stays, report it with these details.'];
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${escape(title)}</title>
<style>
body{font:14px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;padding:28px 32px;color:#1f2933;background:#f7f8fa}
h1{font-size:18px;margin:0 0 12px}p{margin:0 0 10px}code,.path{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
.detail{background:#fff;border:1px solid #d9dee5;border-radius:6px;padding:10px 12px;margin:14px 0;word-break:break-word}
.actions{display:flex;gap:10px;margin-top:18px}a.button{padding:7px 16px;border-radius:6px;border:1px solid #b7c0cc;background:#fff;color:#1f2933;text-decoration:none}
a.primary{background:#2563eb;border-color:#2563eb;color:#fff}
@media (prefers-color-scheme: dark){body{background:#1b1e23;color:#e4e7eb}.detail{background:#23272e;border-color:#3a404a}a.button{background:#23272e;color:#e4e7eb;border-color:#4a515c}a.primary{background:#2563eb;color:#fff}}
</style></head><body>
<h1>${escape(title)}</h1>
${hints.map((h) => `<p>${h}</p>`).join('\n')}
<div class="detail"><p>${escape(message)}</p><p class="path">Data folder: ${escape(dataDir)}</p></div>
<div class="actions"><a class="button primary" href="${ACTION_RETRY}">Try again</a><a class="button" href="${ACTION_FOLDER}">Show data folder</a><a class="button" href="${ACTION_QUIT}">Quit</a></div>
</body></html>`;
  return { kind, title, html };
}

export function errorPageDataUrl(page: StartErrorPage): string {
  return `data:text/html;charset=utf-8,${encodeURIComponent(page.html)}`;
}

/** Which button was pressed, from the URL the page tried to open. */
export function errorPageAction(url: string): 'retry' | 'quit' | 'folder' | null {
  if (url === ACTION_RETRY) return 'retry';
  if (url === ACTION_QUIT) return 'quit';
  if (url === ACTION_FOLDER) return 'folder';
  return null;
}
