import { expect, test } from '@playwright/test';
import { itemAt } from '../server/lib/item-at';
import { api, registerAccount, signInPage } from './api';
import { startE2eServer, watchPage } from './support';

/** Recurring records: a rule made in the form, the upcoming list with overdue ones to confirm, one-tap confirm and skip, the dashboard card. */
let running: Awaited<ReturnType<typeof startE2eServer>>;
test.beforeAll(async () => {
  running = await startE2eServer();
});
test.afterAll(async () => {
  await running.stop();
});

const DAY = 86_400_000;
const dateIn = (ms: number) => {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};

interface Upcoming {
  list: Array<{ id: string; name: string; date: string; overdue: boolean }>;
}

test('create a rule in the form, confirm and skip from the upcoming list', async ({ page }) => {
  const url = running.server.url;
  const owner = await registerAccount(url, 'recurring');
  const card = await api<{ id: string }>(url, owner.token, 'asset.create', { name: 'Visa', type: 'credit_card', currency: 'USD' });
  // A weekly bill to confirm that started 8 days ago: two occurrences are overdue.
  const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const phone = await api<{ id: string }>(url, owner.token, 'recurring.create', {
    name: 'Phone bill',
    template: { type: 'expense', amount: 20, category: 'Food', asset: card.id },
    rule: { freq: 'weekly' },
    startDate: Date.now() - 8 * DAY,
    timeZone,
    mode: 'confirm',
  });
  const before = await api<Upcoming>(url, owner.token, 'recurring.upcoming', { days: 30 });
  const overdue = before.list.filter((o) => o.overdue);
  expect(overdue.length).toBe(2);
  const [oldest, next] = [itemAt(overdue, 0), itemAt(overdue, 1)];

  const watch = watchPage(page);
  await signInPage(page, owner);
  await page.goto(url);
  // The dashboard card lists them, overdue first.
  const dashCard = page.getByTestId('upcoming-card');
  await expect(dashCard.getByTestId('upcoming-item').first()).toContainText('Phone bill');
  await expect(dashCard.getByTestId('upcoming-item').first()).toContainText('Overdue');

  await page.getByRole('link', { name: 'All recurring records' }).click();
  await expect(page.getByRole('heading', { name: 'Recurring', level: 1 })).toBeVisible();

  // A new rule through the form: Gym, 30 USD a month from tomorrow, automatic.
  await page.getByRole('button', { name: 'New recurring record' }).click();
  const form = page.getByRole('dialog').getByRole('form', { name: 'Recurring record' });
  await form.getByRole('textbox', { name: 'Name' }).fill('Gym');
  await form.getByRole('textbox', { name: 'Amount' }).fill('30');
  await form.getByRole('combobox', { name: 'Category' }).click();
  await page.getByRole('option', { name: 'Food' }).click();
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('dialog')).toBeHidden();
  const rule = page.getByTestId('recurring-rule').filter({ hasText: 'Gym' });
  await expect(rule).toContainText('Monthly');
  await expect(rule).toContainText('Automatic');
  const tomorrow = dateIn(Date.now() + DAY);
  await expect(page.locator(`[data-testid="upcoming-item"][data-date="${tomorrow}"]`).filter({ hasText: 'Gym' })).toBeVisible();

  // One tap confirms the oldest overdue occurrence: the record is written, the item leaves the list.
  const first = page.locator(`[data-testid="upcoming-item"][data-date="${oldest.date}"]`).filter({ hasText: 'Phone bill' });
  await first.getByRole('button', { name: 'Confirm' }).click();
  await expect(first).toBeHidden();
  const records = await api<{ list: Array<{ recurringId?: string; occurrence?: string; amount: number }> }>(url, owner.token, 'accounting.query', {});
  expect(records.list).toEqual([expect.objectContaining({ recurringId: phone.id, occurrence: oldest.date, amount: 20 })]);

  // Skip the other: no record, gone from the list.
  const second = page.locator(`[data-testid="upcoming-item"][data-date="${next.date}"]`).filter({ hasText: 'Phone bill' });
  await second.getByRole('button', { name: 'Skip' }).click();
  await expect(second).toBeHidden();
  const after = await api<Upcoming>(url, owner.token, 'recurring.upcoming', { days: 30 });
  expect(after.list.filter((o) => o.overdue)).toEqual([]);
  expect((await api<{ list: unknown[] }>(url, owner.token, 'accounting.query', {})).list).toHaveLength(1);
  const rules = await api<{ list: Array<{ name: string; skipped: string[]; mode: string }> }>(url, owner.token, 'recurring.query', {});
  expect(rules.list.find((r) => r.name === 'Phone bill')?.skipped).toEqual([next.date]);
  expect(rules.list.find((r) => r.name === 'Gym')?.mode).toBe('auto');
  watch.expectClean();
});
