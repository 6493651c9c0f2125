import type { Page } from '@playwright/test';

/** Direct /api calls for test setup (the UI itself is what the tests exercise). */
export async function api<T = unknown>(url: string, token: string | null, action: string, params: unknown): Promise<T> {
  const res = await fetch(`${url}/api`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ action, params }),
  });
  const body = (await res.json()) as { code: number; message: string; data: T };
  if (body.code !== 200) throw new Error(`${action}: ${body.code} ${body.message}`);
  return body.data;
}

export interface Account {
  token: string;
  id: string;
  username: string;
  email: string;
  expiresAt: number;
  /** owner (the first account of a data dir), admin or member. */
  role: 'owner' | 'admin' | 'member';
  mustChangePassword: boolean;
}

/** The first account of a server is its owner; later ones are household members (sign-ups from this computer are open by default). */
export async function registerAccount(url: string, username: string, options: { inviteCode?: string } = {}): Promise<Account> {
  return api<Account>(url, null, 'user.register', { username, email: `${username}@example.com`, password: 'correct horse battery', ...options });
}

/** Opens the app already signed in (the session the sign-in screen would have stored). */
export async function signInPage(page: Page, account: Account, options: { language?: string; scheme?: 'light' | 'dark' } = {}): Promise<void> {
  await page.addInitScript(
    ([session, language, scheme]) => {
      localStorage.setItem('pennypost.session', session);
      localStorage.setItem('pennypost.language', language);
      if (scheme) localStorage.setItem('mantine-color-scheme-value', scheme);
    },
    [
      JSON.stringify({
        token: account.token,
        expiresAt: account.expiresAt,
        user: { id: account.id, username: account.username, email: account.email, role: account.role, mustChangePassword: account.mustChangePassword },
      }),
      options.language ?? 'en',
      options.scheme ?? '',
    ] as const,
  );
}
