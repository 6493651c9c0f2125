/**
 * The desktop app's bridge (electron/preload.cts exposes `window.pennypost`). It is absent in a
 * normal browser (headless server, LAN clients) and in the browser tests: everything here must
 * work without it.
 */
export interface DesktopBridge {
  /** A one-time secret for user.desktopSignIn (the owner signs in without a password); null when refused. */
  desktopSignInSecret(): Promise<string | null>;
}

export function desktopBridge(): DesktopBridge | null {
  const bridge = (window as unknown as { pennypost?: unknown }).pennypost;
  if (!bridge || typeof bridge !== 'object') return null;
  const { desktop, desktopSignInSecret } = bridge as { desktop?: unknown; desktopSignInSecret?: unknown };
  if (desktop !== true || typeof desktopSignInSecret !== 'function') return null;
  return {
    async desktopSignInSecret() {
      const secret: unknown = await (desktopSignInSecret as () => Promise<unknown>).call(bridge);
      return typeof secret === 'string' && secret.length > 0 ? secret : null;
    },
  };
}

const OWNER_NAME_KEY = 'pennypost.desktopOwner';

/** The owner's name as the last desktop sign-in answered it (for "Continue as …"). */
export function rememberedOwnerName(): string | null {
  try {
    return localStorage.getItem(OWNER_NAME_KEY);
  } catch {
    return null;
  }
}

export function rememberOwnerName(username: string): void {
  try {
    localStorage.setItem(OWNER_NAME_KEY, username);
  } catch {
    /* not remembered: the button says "the owner" */
  }
}
