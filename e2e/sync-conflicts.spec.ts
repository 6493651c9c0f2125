import { expect, test } from '@playwright/test';
import { api, registerAccount, signInPage, type Account } from './api';
import { startE2eServer, watchPage } from './support';

/**
 * Settings → Sync → Conflicts against a real server: an entry of the conflict log (recorded by the
 * same code the replication calls when it resolves a conflict) is listed with what was
 * overwritten, and "Keep the other version" writes the overwritten value back.
 */
let running: Awaited<ReturnType<typeof startE2eServer>>;
let owner: Account;
let recordId: string;

test.beforeAll(async () => {
  running = await startE2eServer();
  const url = running.server.url;
  owner = await registerAccount(url, 'conflicted');
  const asset = await api<{ id: string }>(url, owner.token, 'asset.create', { name: 'Cash', type: 'cash', balance: 100 });
  recordId = (await api<{ id: string }>(url, owner.token, 'accounting.create', { type: 'expense', amount: 5, asset: asset.id, category: 'Food', description: 'lunch' })).id;
  // A conflict as the replication meets it: the phone renamed the record, this PennyPost later too.
  const app = running.server.app;
  const doc = (await app.db.collection('records').findOne(recordId).exec())!.toJSON() as Record<string, any>;
  const base = { ...doc, _deleted: false };
  await app.services.syncConflicts.record(owner.id, 'records', 'id', {
    assumedMasterState: base,
    realMasterState: { ...base, description: 'lunch with Ann', searchText: 'lunch with ann', updatedAt: (doc.updatedAt as number) + 1 },
    newDocumentState: { ...base, description: 'team lunch', searchText: 'team lunch', updatedAt: (doc.updatedAt as number) + 2 },
  });
  await api(url, owner.token, 'accounting.update', { id: recordId, description: 'team lunch' });
});

test.afterAll(async () => {
  // Unset when beforeAll failed.
  await (running as typeof running | undefined)?.stop();
});

test('lists what a conflict overwrote and keeps the other version on request', async ({ page }) => {
  const watch = watchPage(page);
  await signInPage(page, owner);
  await page.goto(`${running.server.url}/settings?tab=server`);
  const conflicts = page.getByRole('list', { name: 'Conflicts' });
  const entry = conflicts.getByTestId('sync-conflict');
  await expect(entry).toHaveCount(1);
  await expect(entry).toContainText('Overwritten by a later edit');
  await expect(entry).toContainText("Another device's version lost");
  await expect(entry).toContainText('description: "lunch with Ann" (now "team lunch")');
  await entry.getByRole('button', { name: 'Keep the other version' }).click();
  await expect(page.getByText('The other version was written back; it syncs now.')).toBeVisible();
  await expect(entry).toContainText('Other version kept');
  await expect(entry.getByRole('button', { name: 'Keep the other version' })).toHaveCount(0);
  const record = await api<{ description: string }>(running.server.url, owner.token, 'accounting.get', { id: recordId });
  expect(record.description).toBe('lunch with Ann');
  watch.expectClean();
});
