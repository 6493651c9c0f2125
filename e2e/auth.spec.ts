import { expect, test } from '@playwright/test';
import { api, registerAccount, signInPage } from './api';
import { startE2eServer, watchPage } from './support';

/** Sign-in edge cases shown as plain messages: lockout, expired session, session ended elsewhere. */
let running: Awaited<ReturnType<typeof startE2eServer>>;
test.beforeAll(async () => {
  running = await startE2eServer();
});
test.afterAll(async () => {
  // Unset when beforeAll failed.
  await (running as typeof running | undefined)?.stop();
});

/**
 * Issue 36, finding 19: a brand-new install opens on creating the first account (it opened on
 * "Sign in"); a two-character Chinese name is a username; sign-in takes the username as well as
 * the email; /statistics is the Statistics screen.
 */
test('a new install opens on creating the first account (first in this file: its server has no account yet); 小明 signs up and signs in by name; /statistics works', async ({
  page,
}) => {
  const fresh = running;
  {
    const watch = watchPage(page);
    await page.goto(`${fresh.server.url}/`);
    await expect(page.getByRole('heading', { name: 'Create the owner account' })).toBeVisible();
    await expect(page.getByRole('tab', { name: 'Create account' })).toHaveAttribute('aria-selected', 'true');
    await page.getByRole('textbox', { name: 'Username' }).fill('小明');
    await page.getByRole('textbox', { name: 'Email' }).fill('xiaoming@example.com');
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('correct horse battery');
    await page.getByRole('textbox', { name: 'Repeat password' }).fill('correct horse battery');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();

    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Log out' }).click();
    // An account exists now: the sign-in tab comes first.
    await expect(page.getByRole('tab', { name: 'Sign in' })).toHaveAttribute('aria-selected', 'true');
    const name = page.getByRole('textbox', { name: 'Email or username' });
    await name.fill('小明');
    await page.getByRole('textbox', { name: 'Password' }).fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert')).toHaveText('Wrong email, username or password.');
    await page.getByRole('textbox', { name: 'Password' }).fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();

    await page.goto(`${fresh.server.url}/statistics`);
    await expect(page.getByRole('heading', { level: 1, name: 'Statistics' })).toBeVisible();
    await expect(page).toHaveURL(`${fresh.server.url}/stats`);
    watch.expectClean();
  }
});

test('five wrong passwords lock the account, said in plain words', async ({ page }) => {
  const watch = watchPage(page);
  await registerAccount(running.server.url, 'locky');
  await page.goto(`${running.server.url}/login`);
  await page.getByRole('textbox', { name: 'Email' }).fill('locky@example.com');
  const locked = /^Too many wrong passwords: this account is locked until \d{1,2}:\d{2}( [AP]M)?\. Try again then\.$/;
  for (let i = 0; i < 4; i++) {
    await page.getByRole('textbox', { name: 'Password' }).fill(`wrong password ${i}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert')).toHaveText('Wrong email, username or password.');
  }
  // the fifth wrong password locks the account; then even the right one is refused
  await page.getByRole('textbox', { name: 'Password' }).fill('wrong password 5');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText(locked);
  await page.getByRole('textbox', { name: 'Password' }).fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText(locked);
  await expect(page.getByRole('heading', { name: /^Welcome/ })).toBeVisible();
  watch.expectClean();
});

test('an expired session returns to sign-in with a message', async ({ page }) => {
  const account = await registerAccount(running.server.url, 'expiry');
  await signInPage(page, { ...account, expiresAt: Date.now() - 1000 });
  await page.goto(running.server.url);
  await expect(page.getByRole('status')).toHaveText('Your session has expired. Please sign in again.');
  await expect(page.getByRole('tab', { name: 'Sign in' })).toHaveAttribute('aria-selected', 'true');
});

test('a session signed out elsewhere returns to sign-in at the next call', async ({ page }) => {
  const watch = watchPage(page);
  const account = await registerAccount(running.server.url, 'revoked');
  await signInPage(page, account);
  await page.goto(`${running.server.url}/assets`);
  await expect(page.getByRole('heading', { name: 'Assets' })).toBeVisible();
  await api(running.server.url, account.token, 'user.logout', {});
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Records' }).click();
  await expect(page.getByRole('status')).toHaveText('You were signed out. Please sign in again.');
  expect(await page.evaluate(() => localStorage.getItem('pennypost.session'))).toBeNull();
  watch.expectClean();
});
