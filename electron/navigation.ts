/**
 * What may load in the desktop window. The window is a client of our own HTTP server: anything
 * else (a link in a pushed message, a help page) goes to the system browser, and Chromium
 * permission prompts (camera, geolocation, notifications…) are refused without asking.
 */

/** Only pages of our own server may load in the window. */
export function isAppUrl(candidate: string, appOrigin: string): boolean {
  try {
    return new URL(candidate).origin === appOrigin;
  } catch {
    return false;
  }
}

/** Schemes handed to the OS: web pages and e-mail. Never file:, javascript:, custom handlers. */
export function isExternalUrlAllowed(candidate: string): boolean {
  try {
    const url = new URL(candidate);
    if (url.protocol === 'mailto:') return true;
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '' && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

/** The part of WebContents the policy needs. */
export interface PolicedContents {
  on(event: 'will-navigate' | 'will-redirect', listener: (event: { preventDefault(): void }, url: string) => void): unknown;
  on(event: 'will-attach-webview', listener: (event: { preventDefault(): void }) => void): unknown;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' } | { action: 'allow' }): void;
}

/**
 * Navigation limited to `appOrigin`; window.open and links elsewhere open in the system browser
 * (when their scheme is safe), never in an Electron window; <webview> is refused.
 */
export function attachNavigationPolicy(contents: PolicedContents, appOrigin: () => string, openExternal: (url: string) => void): void {
  const leave = (url: string) => {
    if (isExternalUrlAllowed(url)) openExternal(url);
  };
  contents.setWindowOpenHandler(({ url }) => {
    leave(url);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event, url) => {
    if (isAppUrl(url, appOrigin())) return;
    event.preventDefault();
    leave(url);
  });
  contents.on('will-redirect', (event, url) => {
    // A redirect leaving the app (e.g. a short link /s/… of ours) opens in the browser instead.
    if (isAppUrl(url, appOrigin())) return;
    event.preventDefault();
    leave(url);
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

/** The part of Session the permission policy needs. */
export interface PolicedSession {
  setPermissionRequestHandler(handler: (contents: unknown, permission: string, callback: (granted: boolean) => void) => void): void;
  setPermissionCheckHandler(handler: (contents: unknown, permission: string) => boolean): void;
}

/**
 * Every permission request is refused. One exception, checked only (never prompted): writing
 * plain text to the clipboard from our own pages, which "copy app key" buttons need.
 */
export function denyPermissions(session: PolicedSession, appOrigin: () => string): void {
  session.setPermissionRequestHandler((_contents, permission, callback) => callback(permissionAllowed(permission, null, appOrigin())));
  session.setPermissionCheckHandler((_contents, permission, ...rest: unknown[]) => permissionAllowed(permission, typeof rest[0] === 'string' ? rest[0] : null, appOrigin()));
}

export function permissionAllowed(permission: string, requestingOrigin: string | null, appOrigin: string): boolean {
  return permission === 'clipboard-sanitized-write' && requestingOrigin !== null && isAppUrl(requestingOrigin, appOrigin);
}

/** The CSP the server sends (server/http/security-headers.ts); the shell adds it where missing. */
export const APP_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

/**
 * Response headers with a CSP on every page: the server's own is kept; any response without
 * one (an error page of a proxy, a future route that forgot) gets the app's strict policy.
 */
export function withCsp(headers: Record<string, string[] | string> | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) out[name] = Array.isArray(value) ? value : [value];
  if (!Object.keys(out).some((name) => name.toLowerCase() === 'content-security-policy')) out['Content-Security-Policy'] = [APP_CSP];
  return out;
}
