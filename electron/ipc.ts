import { isAppUrl, isExternalUrlAllowed } from './navigation';

/**
 * The preload's bridge (electron/preload.cts) calls these two channels; everything the page sends
 * is untrusted and checked here: it must come from our own origin and be of the expected shape.
 */
export const IPC_OPEN_EXTERNAL = 'pennypost:open-external';
export const IPC_NOTIFY = 'pennypost:notify';
/** The window asks for a one-time secret that signs the owner in (user.desktopSignIn). */
export const IPC_DESKTOP_SIGN_IN = 'pennypost:desktop-sign-in';

/**
 * A one-time sign-in secret for the app's own pages, or null: a page of any other origin (a link
 * that somehow loaded in the window) never gets one.
 */
export function checkDesktopSignIn(senderUrl: string, appOrigin: string, issue: (() => string) | null): string | null {
  if (!issue || !isAppUrl(senderUrl, appOrigin)) return null;
  return issue();
}

/** The URL to hand to the OS, or null to refuse. */
export function checkOpenExternal(senderUrl: string, appOrigin: string, url: unknown): string | null {
  if (!isAppUrl(senderUrl, appOrigin)) return null;
  if (typeof url !== 'string' || url.length > 4096 || !isExternalUrlAllowed(url)) return null;
  return url;
}

/** A notification the page asked for, or null to refuse. */
export function checkNotify(senderUrl: string, appOrigin: string, payload: unknown): { title: string; body: string } | null {
  if (!isAppUrl(senderUrl, appOrigin)) return null;
  if (typeof payload !== 'object' || payload === null) return null;
  const { title, body } = payload as Record<string, unknown>;
  if (typeof title !== 'string' || title.trim() === '' || title.length > 256) return null;
  if (body !== undefined && (typeof body !== 'string' || body.length > 4096)) return null;
  return { title: title.trim(), body: typeof body === 'string' ? body : '' };
}

/** Extra argument passed to the renderer so the preload can expose the app version. */
export const VERSION_ARG_PREFIX = '--pennypost-version=';

export function versionFromArgv(argv: readonly string[]): string {
  const arg = argv.find((a) => a.startsWith(VERSION_ARG_PREFIX));
  const version = arg ? arg.slice(VERSION_ARG_PREFIX.length) : '';
  return /^[0-9A-Za-z.+-]{1,64}$/.test(version) ? version : '';
}
