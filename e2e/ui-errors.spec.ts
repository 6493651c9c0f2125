import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { api, registerAccount, signInPage, type Account } from './api';
import { startE2eServer, watchPage } from './support';

/**
 * Issue 19, finding 1: errors were written for developers (`params.email must match format "email"`,
 * a username's regular expression, `params.tags[1] …` at the far right of the form instead of under
 * Tags, `params.rate …`, "…or import with createMissingCategories", "…but file.upload declared
 * image/png"), in Chinese with the English appended; rules the hint states were not checked before
 * sending. Each example, in English and Chinese: plain words under the field concerned, no param
 * path, no pattern, no English in Chinese; a broken schema rule is refused before any request.
 */
const root = path.resolve(import.meta.dirname, '..');
type Tree = { [key: string]: string | Tree };
const STRINGS: Partial<Record<string, Tree>> = {
  en: JSON.parse(readFileSync(path.join(root, 'renderer/src/i18n/en.json'), 'utf8')) as Tree,
  'zh-CN': JSON.parse(readFileSync(path.join(root, 'renderer/src/i18n/zh-CN.json'), 'utf8')) as Tree,
};
/** The UI's text for `key` in `language`, with {{placeholders}} filled in. */
function say(language: string, key: string, values: Record<string, string | number> = {}): string {
  let node: string | Tree | undefined = STRINGS[language];
  for (const step of key.split('.')) node = typeof node === 'object' ? node[step] : undefined;
  if (typeof node !== 'string') throw new Error(`no string ${key}`);
  return node.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, name: string) => String(values[name]));
}

/** Developer text that must never reach the screen. */
const DEVELOPER_TEXT = /params\.|\\p\{|\^\[|\]\$|must match|must NOT|createMissingCategories|file\.upload|\(\[/;

/** Plain words: no developer text; in Chinese, Chinese, with no English word (codes, file types and our own data aside). */
function expectPlainWords(text: string, language: string): void {
  expect(text).not.toMatch(DEVELOPER_TEXT);
  if (language !== 'zh-CN') return;
  expect(text).toMatch(/\p{Script=Han}/u);
  expect(text.replace(/image\/png|PennyPost|CSV|\b[A-Z]{3}\b/g, '')).not.toMatch(/[A-Za-z]{3,}/);
}

/** The error shown under a form field (Mantine links it to the input with aria-describedby). */
async function errorUnder(page: Page, input: Locator): Promise<Locator> {
  await expect(input).toHaveAttribute('aria-invalid', 'true');
  const ids = ((await input.getAttribute('aria-describedby')) ?? '').split(/\s+/);
  const errorId = ids.find((id) => id.endsWith('-error'));
  if (!errorId) throw new Error(`no error linked to the field (aria-describedby: ${ids.join(' ')})`);
  return page.locator(`[id="${errorId}"]`);
}

/** The /api actions the page sends. */
function recordCalls(page: Page): string[] {
  const calls: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname !== '/api') return;
    const body = request.postDataJSON() as { action?: string } | null;
    if (body?.action) calls.push(body.action);
  });
  return calls;
}

let running: Awaited<ReturnType<typeof startE2eServer>>;
let users = 0;
test.beforeAll(async () => {
  running = await startE2eServer();
  await registerAccount(running.server.url, 'owner'); // later sign-ups are members
});
test.afterAll(async () => {
  // Unset when beforeAll failed.
  await (running as typeof running | undefined)?.stop();
});

/** A fresh account with a USD wallet, signed in on `where`. */
async function open(page: Page, where: string, language: string): Promise<Account> {
  const account = await registerAccount(running.server.url, `errors${++users}`);
  await api(running.server.url, account.token, 'asset.create', { name: 'Wallet', type: 'cash', currency: 'USD', balance: 1000 });
  await signInPage(page, account, { language });
  await page.goto(`${running.server.url}${where}`);
  return account;
}

for (const language of ['en', 'zh-CN']) {
  test.describe(`in ${language}`, () => {
    test('sign-up: username and email rules in words under their fields, refused before sending', async ({ page }) => {
      const watch = watchPage(page);
      const calls = recordCalls(page);
      await page.addInitScript((lng) => localStorage.setItem('pennypost.language', lng), language);
      await page.goto(`${running.server.url}/register`);
      const form = page.getByRole('form', { name: say(language, 'auth.createAccount') });
      const username = form.getByLabel(say(language, 'auth.username'));
      const email = form.getByLabel(say(language, 'auth.email'));
      await username.fill('-x');
      await email.fill('not-an-email');
      await form.getByRole('textbox', { name: say(language, 'auth.password'), exact: true }).fill('correct horse battery');
      await form.getByRole('textbox', { name: say(language, 'auth.confirmPassword') }).fill('correct horse battery');
      await form.getByRole('button', { name: say(language, 'auth.createAccount') }).click();
      const usernameError = await errorUnder(page, username);
      await expect(usernameError).toHaveText(say(language, 'errors.withField', { label: say(language, 'errors.field.username'), message: say(language, 'errors.hint.username') }));
      expectPlainWords((await usernameError.textContent()) ?? '', language);

      await username.fill('good.name');
      await form.getByRole('button', { name: say(language, 'auth.createAccount') }).click();
      const emailError = await errorUnder(page, email);
      await expect(emailError).toHaveText(say(language, 'errors.withField', { label: say(language, 'errors.field.email'), message: say(language, 'errors.format.email') }));
      expectPlainWords((await emailError.textContent()) ?? '', language);
      expect(calls.filter((action) => action === 'user.register')).toEqual([]);
      watch.expectClean();
    });

    test('new record: a tag over 32 characters is refused under Tags, before sending', async ({ page }) => {
      const watch = watchPage(page);
      const account = await open(page, '/records', language);
      const calls = recordCalls(page);
      const form = page.getByRole('form', { name: say(language, 'records.newRecord') });
      await form.getByRole('textbox', { name: say(language, 'records.amount') }).fill('12.50');
      const tags = form.getByLabel(say(language, 'records.tags'));
      await tags.fill('午餐');
      await tags.press('Enter');
      await tags.fill('长'.repeat(33)); // 33 characters
      await tags.press('Enter');
      await form.getByRole('button', { name: say(language, 'records.save') }).click();
      const error = await errorUnder(page, tags);
      await expect(error).toHaveText(
        say(language, 'errors.withField', { label: say(language, 'errors.field.tags'), message: say(language, 'errors.ruleItem.maxLength', { limit: 32 }) }),
      );
      expectPlainWords((await error.textContent()) ?? '', language);
      expect(await form.innerText()).not.toMatch(DEVELOPER_TEXT);
      await expect(form.getByRole('alert')).toHaveCount(0); // nothing at the far right of the form
      expect(calls.filter((action) => action === 'accounting.create')).toEqual([]);
      expect((await api<{ total: number }>(running.server.url, account.token, 'accounting.query', {})).total).toBe(0);
      watch.expectClean();
    });

    test('currency rate: a rate of 0 is refused in words under Rate, before sending', async ({ page }) => {
      const watch = watchPage(page);
      await open(page, '/settings?tab=currency', language);
      const calls = recordCalls(page);
      const rate = page.getByRole('textbox', { name: say(language, 'settings.rate') });
      await rate.fill('0');
      await page.getByRole('button', { name: say(language, 'settings.addRate') }).click();
      const error = await errorUnder(page, rate);
      await expect(error).not.toBeEmpty();
      expectPlainWords((await error.textContent()) ?? '', language);
      expect(calls.filter((action) => action === 'currency.setRate')).toEqual([]);
      watch.expectClean();
    });

    test('CSV import: an unknown category is explained and can be created with one click', async ({ page }) => {
      const watch = watchPage(page);
      await open(page, '/settings?tab=data', language);
      await page
        .getByTestId('import-input')
        .setInputFiles({ name: 'pets.csv', mimeType: 'text/csv', buffer: Buffer.from('date,type,amount,asset,category\n2026-01-05,expense,12.5,Wallet,Pets\n') });
      const preview = page.getByTestId('import-preview');
      await expect(preview.getByRole('table')).toContainText(say(language, 'errors.importRow.unknownCategory', { 1: 'Pets' }));
      expectPlainWords((await preview.innerText()).replace(/Pets|pets\.csv|Wallet/g, ''), language);
      await preview.getByRole('button', { name: say(language, 'errors.importFix.createCategories') }).click();
      await expect(preview.getByRole('table')).toHaveCount(0);
      await expect(preview.getByRole('button', { name: say(language, language === 'en' ? 'settings.importN_one' : 'settings.importN_other', { count: 1 }) })).toBeEnabled();
      watch.expectClean();
    });

    test('file upload: bytes that are not the declared type are explained without API names', async ({ page }) => {
      const watch = watchPage(page);
      await open(page, '/files', language);
      await page
        .locator('input[type="file"]')
        .first()
        .setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: Buffer.from('this is plain text, not a picture') });
      const refusal = page.getByText(say(language, 'errors.reason.files.bytesNotOfDeclaredType', { 1: 'image/png' }).slice(0, 12));
      await expect(refusal).toBeVisible();
      expectPlainWords((await refusal.innerText()).replace(/photo\.png/g, ''), language);
      watch.expectClean();
    });
  });
}
