import { expect, test, type Page } from '@playwright/test';
import { api, signInPage, type Account } from './api';
import { startE2eServer, watchPage } from './support';

/**
 * The household against a real server: the first account is the owner; the owner requires invite
 * codes, invites someone, and that person signs up with the code as a member who sees none of the
 * server's settings and never calls an owner-only action; a password reset by the owner forces a
 * new password at the next sign-in. Then the desktop app's password-less owner sign-in.
 */
// One server at a time (each test group has its own data dir; RxDB allows a limited number of open collections).
let running: Awaited<ReturnType<typeof startE2eServer>>;

/** Actions only the owner and admins may call (403 / 1004 for members). */
const OWNER_ONLY = /^(settings\.(get|update)|backup\.|user\.(listMembers|createInvite|revokeInvite|setRole|disable|enable|resetPassword|delete)$)/;

/** Every /api action the page calls, and every refusal it gets. */
function recordApi(page: Page) {
  const calls: string[] = [];
  const refused: string[] = [];
  page.on('request', (request) => {
    if (request.method() !== 'POST' || new URL(request.url()).pathname !== '/api') return;
    const body = JSON.parse(request.postData() ?? '{}') as { action?: string };
    calls.push(body.action ?? '?');
  });
  page.on('response', (response) => {
    if (new URL(response.url()).pathname === '/api' && response.status() === 403) refused.push(response.request().postData() ?? '');
  });
  return { calls, refused, clear: () => ((calls.length = 0), (refused.length = 0)) };
}

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

async function signIn(page: Page, email: string, password: string) {
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByRole('textbox', { name: 'Password' }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

test.describe('the household', () => {
  test.describe.configure({ mode: 'serial' });
  test.beforeAll(async () => {
    running = await startE2eServer();
  });
  test.afterAll(async () => {
    // Unset when beforeAll failed.
    await (running as typeof running | undefined)?.stop();
  });

  test('owner invites a member, who sees no server settings; a reset password must be replaced', async ({ page }) => {
    const watch = watchPage(page);
    const traffic = recordApi(page);
    const url = running.server.url;

    // The first account of the data dir is its owner.
    await page.goto(`${url}/register`);
    await expect(page.getByRole('heading', { name: 'Create the owner account' })).toBeVisible();
    await expect(page.getByTestId('owner-hint')).toContainText('The first account owns this PennyPost');
    await expect(page.getByLabel(/Invite code/)).toHaveCount(0);
    await page.getByLabel('Username').fill('olivia');
    await page.getByLabel('Email').fill('olivia@example.com');
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('owner password 1');
    await page.getByRole('textbox', { name: 'Repeat password' }).fill('owner password 1');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();

    // Household: the owner alone; sign-ups on this computer now need an invite code.
    await nav(page).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('tab', { name: 'Household' }).click();
    const members = page.getByTestId('household-members');
    await expect(members.locator('tbody tr')).toHaveCount(1);
    await expect(members.locator('tr[data-member="olivia"]')).toContainText('Owner');
    await expect(page.getByText('No pending invites.')).toBeVisible();
    const fromHere = page.getByRole('combobox', { name: 'Sign-ups on this computer' });
    await expect(fromHere).toHaveValue('Open to anyone');
    await fromHere.click();
    await page.getByRole('option', { name: 'With an invite code' }).click();
    await expect(page.getByText('Saved.')).toBeVisible();
    await expect(fromHere).toHaveValue('With an invite code');
    expect(await api<{ signUp: string }>(url, null, 'user.registrationInfo', {})).toMatchObject({ hasOwner: true, signUp: 'invite' });

    // An invite code, shown once.
    await page.getByRole('button', { name: 'Invite someone' }).click();
    const inviteDialog = page.getByRole('dialog', { name: 'Invite someone to this PennyPost' });
    await expect(inviteDialog.getByRole('radio', { name: 'Member' })).toBeChecked();
    await inviteDialog.getByRole('button', { name: 'Create invite code' }).click();
    const codeBox = inviteDialog.getByTestId('invite-code');
    await expect(codeBox).toHaveText(/^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    const code = (await codeBox.textContent()) ?? '';
    await expect(inviteDialog.getByRole('button', { name: 'Copy invite code' })).toBeVisible();
    await expect(inviteDialog).toContainText('It works once');
    await inviteDialog.getByRole('button', { name: 'Done' }).click();
    await expect(inviteDialog).toBeHidden();
    const invites = page.getByTestId('household-invites');
    await expect(invites.locator('tbody tr')).toHaveCount(1);
    await expect(invites.locator('tbody tr').first()).toContainText('olivia');
    await nav(page).getByRole('button', { name: 'Log out' }).click();
    await expect(page.getByText('You have signed out.')).toBeVisible();

    // A new person: the code is required, a wrong one is refused in plain words.
    traffic.clear();
    await page.getByRole('tab', { name: 'Create account' }).click();
    await expect(page.getByRole('heading', { name: 'Welcome to PennyPost' })).toBeVisible();
    const inviteField = page.getByLabel('Invite code');
    await expect(inviteField).toBeVisible();
    await page.getByLabel('Username').fill('milo');
    await page.getByLabel('Email').fill('milo@example.com');
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('member password 1');
    await page.getByRole('textbox', { name: 'Repeat password' }).fill('member password 1');
    const create = page.getByRole('button', { name: 'Create account' });
    await expect(create).toBeDisabled();
    await inviteField.fill('AAAA-BBBB-CCCC');
    await create.click();
    await expect(page.getByText(/This invite code is not valid/)).toBeVisible();
    await inviteField.fill(code.toLowerCase());
    await create.click();
    await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();

    // The member: every screen, and none of the server's settings.
    for (const screen of ['Records', 'Assets', 'Statistics', 'Savings game', 'Push', 'Files & links', 'Settings']) {
      await nav(page).getByRole('link', { name: screen }).click();
      await expect(page.getByRole('heading', { name: screen, level: 1 })).toBeVisible();
    }
    const tabs = page.getByRole('tablist').first().getByRole('tab');
    await expect(tabs).toHaveText(['General', 'Currency & rates', 'Categories', 'Rules', 'Import & export', 'Reminders', 'Sync & about']);
    const account = page.getByRole('region', { name: 'Account' });
    await expect(account).toContainText('milo · milo@example.com');
    await expect(account).toContainText('Member');
    await expect(account.getByRole('form', { name: 'Change password' })).toBeVisible();
    for (const tab of ['Currency & rates', 'Categories', 'Import & export', 'Sync & about']) {
      await page.getByRole('tab', { name: tab }).click();
      await expect(page.getByRole('tab', { name: tab })).toHaveAttribute('aria-selected', 'true');
    }
    await page.getByRole('tab', { name: 'Import & export' }).click();
    await expect(page.getByRole('region', { name: 'Restore from a JSON backup file' })).toBeVisible();
    await page.getByRole('tab', { name: 'Sync & about' }).click();
    await expect(page.getByRole('form', { name: 'Connect to CouchDB' })).toBeVisible();
    await expect(page.getByRole('region', { name: 'About' })).toBeVisible();
    await expect(page.getByRole('region', { name: 'Network' })).toHaveCount(0);
    await expect(page.getByText('LAN access')).toHaveCount(0);
    // Links to the owner's tabs fall back to General.
    for (const tab of ['backups', 'household']) {
      await page.goto(`${url}/settings?tab=${tab}`);
      await expect(page.getByRole('tab', { name: 'General' })).toHaveAttribute('aria-selected', 'true');
      await expect(page.getByRole('region', { name: 'Snapshots' })).toHaveCount(0);
      await expect(page.getByRole('region', { name: 'Members' })).toHaveCount(0);
    }
    expect(traffic.calls).toEqual(expect.arrayContaining(['user.register', 'accounting.query', 'sync.status', 'app.info']));
    expect(traffic.calls.filter((action) => OWNER_ONLY.test(action))).toEqual([]);
    expect(traffic.refused).toEqual([]);
    await nav(page).getByRole('button', { name: 'Log out' }).click();

    // The owner resets the member's password: a temporary one, shown once.
    await signIn(page, 'olivia@example.com', 'owner password 1');
    await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();
    await page.goto(`${url}/settings?tab=household`);
    const milo = members.locator('tr[data-member="milo"]');
    await expect(milo).toContainText('Member');
    await expect(page.getByText('No pending invites.')).toBeVisible();
    await milo.getByRole('button', { name: 'Actions for milo' }).click();
    await page.getByRole('menuitem', { name: 'Reset password' }).click();
    const resetDialog = page.getByRole('dialog', { name: 'Reset the password of milo?' });
    await resetDialog.getByRole('button', { name: 'Reset password' }).click();
    const tempBox = resetDialog.getByTestId('temporary-password');
    await expect(tempBox).toHaveText(/^[a-z0-9]{4}(-[a-z0-9]{4}){3}$/);
    const temporary = (await tempBox.textContent()) ?? '';
    await expect(resetDialog.getByRole('button', { name: 'Copy temporary password' })).toBeVisible();
    await expect(resetDialog).toContainText('They must choose a new password at their next sign-in.');
    await resetDialog.getByRole('button', { name: 'Done' }).click();
    await expect(milo).toContainText('Must choose a new password');
    await nav(page).getByRole('button', { name: 'Log out' }).click();

    // The member signs in with it and must choose a new password before anything else.
    await signIn(page, 'milo@example.com', temporary);
    await expect(page.getByRole('heading', { name: 'Choose a new password' })).toBeVisible();
    await expect(page.getByRole('navigation', { name: 'Main' })).toHaveCount(0);
    await expect(page.getByRole('status')).toContainText('Your password was reset by the owner');
    await expect(page.getByRole('textbox', { name: 'Temporary password' })).toHaveValue(temporary);
    await page.getByRole('textbox', { name: 'New password', exact: true }).fill('member password 2');
    await page.getByRole('textbox', { name: 'Repeat new password' }).fill('member password 2');
    await page.getByRole('button', { name: 'Save new password' }).click();
    await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();
    await expect(nav(page)).toContainText('milo');
    // Signed in with the new password from now on; the temporary one is gone.
    await expect(api(url, null, 'user.login', { email: 'milo@example.com', password: temporary })).rejects.toThrow(/1002/);
    expect(await api<{ mustChangePassword: boolean }>(url, null, 'user.login', { email: 'milo@example.com', password: 'member password 2' })).toMatchObject({
      role: 'member',
      mustChangePassword: false,
    });
    watch.expectClean();
  });

  test('the owner disables, enables and deletes a member (typing the name to confirm)', async ({ page, browser }) => {
    const watch = watchPage(page);
    const url = running.server.url;
    const owner = await api<Account>(url, null, 'user.login', { email: 'olivia@example.com', password: 'owner password 1' });
    const member = await api<Account>(url, null, 'user.login', { email: 'milo@example.com', password: 'member password 2' });
    const miloPage = await browser.newPage();
    const watchMilo = watchPage(miloPage);
    await signInPage(miloPage, member);
    await miloPage.goto(`${url}/records`);
    await expect(miloPage.getByRole('heading', { name: 'Records' })).toBeVisible();

    await signInPage(page, owner);
    await page.goto(`${url}/settings?tab=household`);
    const milo = page.getByTestId('household-members').locator('tr[data-member="milo"]');
    await milo.getByRole('button', { name: 'Actions for milo' }).click();
    await page.getByRole('menuitem', { name: 'Disable' }).click();
    await expect(page.getByText('milo is disabled and was signed out everywhere.')).toBeVisible();
    await expect(milo).toContainText('Disabled');
    // The member's open window is signed out at its next call and cannot sign in again.
    await nav(miloPage).getByRole('link', { name: 'Assets' }).click();
    await expect(miloPage.getByRole('status')).toHaveText('You were signed out. Please sign in again.');
    await signIn(miloPage, 'milo@example.com', 'member password 2');
    await expect(miloPage.getByRole('alert')).toHaveText('This account is disabled. Ask the owner of this PennyPost.');

    await milo.getByRole('button', { name: 'Actions for milo' }).click();
    await page.getByRole('menuitem', { name: 'Enable' }).click();
    await expect(milo).toContainText('Active');
    await milo.getByRole('button', { name: 'Actions for milo' }).click();
    await page.getByRole('menuitem', { name: 'Delete with all data' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete milo and all their data?' });
    const confirm = dialog.getByRole('button', { name: 'Delete account' });
    const typed = dialog.getByRole('textbox', { name: 'Type milo to confirm' });
    await typed.fill('Milo');
    await expect(confirm).toBeDisabled();
    await typed.fill('milo');
    await confirm.click();
    await expect(page.getByText('milo was deleted with all their data.')).toBeVisible();
    await expect(dialog).toBeHidden();
    await expect(milo).toHaveCount(0);
    await signIn(miloPage, 'milo@example.com', 'member password 2');
    await expect(miloPage.getByRole('alert')).toHaveText('Wrong email, username or password.');
    watchMilo.expectClean();
    await miloPage.close();
    watch.expectClean();
  });
});

test.describe('the desktop app', () => {
  test.beforeAll(async () => {
    running = await startE2eServer();
  });
  test.afterAll(async () => {
    // Unset when beforeAll failed.
    await (running as typeof running | undefined)?.stop();
  });

  test('the owner is signed in without a password; other members of the household use theirs', async ({ page }) => {
    // A new data dir. The fake bridge hands out secrets the way the Electron shell does over IPC
    // (electron/shell.ts → users.desktop.issue()); nothing on the server hands them out.
    const desktop = running;
    const watch = watchPage(page);
    await page.exposeFunction('pennypostTestDesktopSecret', () => desktop.server.app.services.users.desktop.issue());
    await page.addInitScript(() => {
      const w = window as unknown as { pennypost: unknown; pennypostTestDesktopSecret: () => Promise<string> };
      w.pennypost = { desktop: true, desktopSignInSecret: () => w.pennypostTestDesktopSecret() };
    });
    await page.goto(desktop.server.url);
    // No session on a new data dir: the window creates the owner and signs in by itself.
    await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();
    await expect(nav(page)).toContainText('owner');
    await nav(page).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('tab', { name: 'Household' }).click();
    await expect(page.getByTestId('household-members').locator('tr[data-member="owner"]')).toContainText('Desktop sign-in only');
    // After signing out nothing happens by itself: the owner continues, others sign in with their password.
    await nav(page).getByRole('button', { name: 'Log out' }).click();
    await expect(page.getByText('You have signed out.')).toBeVisible();
    await expect(page.getByRole('textbox', { name: 'Email' })).toBeVisible();
    await expect(page.getByText('Other members of the household sign in with their password')).toBeVisible();
    await page.getByRole('button', { name: 'Continue as owner' }).click();
    await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();
    // A secret works once.
    const secret = desktop.server.app.services.users.desktop.issue();
    await api(desktop.server.url, null, 'user.desktopSignIn', { secret });
    await expect(api(desktop.server.url, null, 'user.desktopSignIn', { secret })).rejects.toThrow(/401/);
    watch.expectClean();
  });
});
