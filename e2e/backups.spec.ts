import { expect, test } from '@playwright/test';
import { api, registerAccount, signInPage } from './api';
import { startE2eServer, watchPage } from './support';

/**
 * Settings → Backups against a real server: create a snapshot, see it listed (date, size, record
 * count), restore it after a confirmation, and restore a JSON backup file into a new account.
 */
let running: Awaited<ReturnType<typeof startE2eServer>>;

test.beforeAll(async () => {
  running = await startE2eServer({ settings: { backup: { automatic: false } } });
});
test.afterAll(async () => {
  // Unset when beforeAll failed.
  await (running as typeof running | undefined)?.stop();
});

const total = async (token: string) => (await api<{ total: number }>(running.server.url, token, 'accounting.query', {})).total;

test('create, list and restore a snapshot; restore a JSON backup file', async ({ page, browser }) => {
  const watch = watchPage(page);
  const url = running.server.url;
  const owner = await registerAccount(url, 'snapper');
  const { id: cash } = await api<{ id: string }>(url, owner.token, 'asset.create', { name: 'Cash', type: 'cash', currency: 'USD', balance: 100 });
  await api(url, owner.token, 'accounting.create', { type: 'expense', amount: 12.5, asset: cash, category: 'Food', description: 'lunch' });

  await signInPage(page, owner);
  await page.goto(`${url}/settings?tab=backups`);
  await expect(page.getByRole('tab', { name: 'Backups' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByText('No snapshots yet.')).toBeVisible();

  await page.getByRole('button', { name: 'Create snapshot now' }).click();
  await expect(page.getByText('Snapshot created (1 records).')).toBeVisible();
  const rows = page.getByTestId('snapshot-list').locator('tbody tr');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('Manual');
  await expect(rows.first().locator('td').nth(2)).toHaveText('1');
  await expect(rows.first().locator('td').nth(3)).toHaveText(/\d+(\.\d+)?\s?(B|KB|kB|MB|KiB|MiB)/);

  // A change after the snapshot, then the restore: cancel first, then confirm.
  await api(url, owner.token, 'accounting.create', { type: 'expense', amount: 30, asset: cash, category: 'Food', description: 'dinner' });
  expect(await total(owner.token)).toBe(2);
  await rows.first().getByRole('button', { name: 'Restore' }).click();
  const dialog = page.getByRole('dialog', { name: 'Restore this snapshot?' });
  await expect(dialog).toContainText('Changes made since then are set aside in a new snapshot');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  expect(await total(owner.token)).toBe(2);
  await rows.first().getByRole('button', { name: 'Restore' }).click();
  await dialog.getByRole('button', { name: 'Restore snapshot' }).click();
  await expect(page.getByText('Snapshot restored.')).toBeVisible();
  await expect(dialog).toBeHidden();
  expect(await total(owner.token)).toBe(1);
  // The state before the restore is kept as a snapshot of its own.
  await expect(rows).toHaveCount(2);
  await expect(page.getByTestId('snapshot-list')).toContainText('Before a restore');

  // Restore from a JSON backup file into a new, empty account: a household member, who has no
  // Backups tab (snapshots are the owner's) and restores under Import & export.
  const backup = await api<Record<string, unknown>>(url, owner.token, 'ledger.backup', {});
  const fresh = await registerAccount(url, 'restorer');
  expect(fresh.role).toBe('member');
  const other = await browser.newPage();
  const watchOther = watchPage(other);
  await signInPage(other, fresh);
  await other.goto(`${url}/settings?tab=data`);
  await expect(other.getByRole('tab', { name: 'Import & export' })).toHaveAttribute('aria-selected', 'true');
  await expect(other.getByRole('tab', { name: 'Backups' })).toHaveCount(0);
  const input = other.getByTestId('json-restore-input');
  await input.setInputFiles({ name: 'not-a-backup.json', mimeType: 'application/json', buffer: Buffer.from('{"hello": 1}') });
  await expect(other.getByRole('alert')).toContainText('This file is not a PennyPost JSON backup.');
  expect(await total(fresh.token)).toBe(0);
  await input.setInputFiles({ name: 'pennypost-backup.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(backup)) });
  await expect(other.getByText('Backup restored: 1 assets, 1 records.')).toBeVisible();
  expect(await total(fresh.token)).toBe(1);
  const assets = await api<{ list: Array<{ name: string; balance: number }> }>(url, fresh.token, 'asset.query', {});
  expect(assets.list.map((a) => [a.name, a.balance])).toEqual([['Cash', 87.5]]);
  watchOther.expectClean();
  await other.close();
  // The JSON restore took a snapshot first (the owner sees it).
  await page.reload();
  await expect(rows).toHaveCount(3);
  await expect(rows.filter({ hasText: 'Before a restore' })).toHaveCount(2);
  watch.expectClean();
});
