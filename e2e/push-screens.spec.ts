import { expect, test } from '@playwright/test';
import { api, registerAccount, signInPage } from './api';
import { startE2eServer, watchPage } from './support';

/**
 * Issue 36, finding 18 (the Push screen): the app list and the app say the same about where its
 * pushes go (the list said "0 recipients" where the app said "All recipients"); the history shows a
 * push's words, not its Markdown marks, and the push itself rendered; a live-feed item links to
 * its message page.
 */
let running: Awaited<ReturnType<typeof startE2eServer>>;
test.beforeAll(async () => {
  running = await startE2eServer();
});
test.afterAll(async () => {
  await (running as typeof running | undefined)?.stop();
});

test('apps say where their pushes go, the same in the list and on the app; history and feed show Markdown as text and link the message page', async ({ page }) => {
  const watch = watchPage(page);
  const url = running.server.url;
  const account = await registerAccount(url, 'pusher');
  const call = <T = { id: string }>(action: string, params: unknown) => api<T>(url, account.token, action, params);
  const desktop = await call('push.createChannel', { name: 'This computer', type: 'desktop' });
  const hook = await call('push.createChannel', { name: 'Phone (ntfy)', type: 'webhook', config: { format: 'ntfy', url: 'https://ntfy.example.com' } });
  const alerts = await call<{ id: string; appKey: string }>('push.createApp', { name: 'Alerts', channelId: desktop.id });
  await call('push.createApp', { name: 'Nobody yet', channelId: hook.id });
  const failover = await call('push.createApp', { name: 'On call', channelId: hook.id, pushMode: 'first' });
  await call('push.addRecipient', { appId: failover.id, address: 'oncall-a', name: 'A' });
  await call('push.addRecipient', { appId: failover.id, address: 'oncall-b', name: 'B' });

  await signInPage(page, account);
  await page.goto(`${url}/push?tab=apps`);
  const list = page.getByRole('region', { name: 'Apps' });
  const expected: Array<[string, string]> = [
    ['Alerts', 'Shown on this computer'],
    ['Nobody yet', 'No recipients yet'],
    ['On call', '2 recipients · first that works'],
  ];
  for (const [name, where] of expected) {
    const item = list.getByRole('button', { name: new RegExp(`^${name}`) });
    await expect(item).toContainText(where);
    await expect(item).not.toContainText('0 recipients');
    await item.click();
    await expect(page.getByRole('region', { name: `App ${name}` })).toContainText(where);
  }

  // A push with Markdown: the history shows its words; the push opened shows it rendered.
  const sent = await fetch(`${url}/send/${alerts.appKey}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Nightly backup', desp: '**3 jobs** done, see [the log](https://example.com/log) and `backup.sh`' }),
  });
  expect(sent.status).toBe(200);
  await page.getByRole('tab', { name: 'History' }).click();
  const row = page.getByRole('row').filter({ hasText: 'Nightly backup' });
  await expect(row).toContainText('3 jobs done, see the log and backup.sh');
  await expect(row).not.toContainText('**');
  await row.getByRole('button', { name: 'Nightly backup' }).click();
  const body = page.getByRole('dialog', { name: 'Nightly backup' }).getByTestId('message-body');
  await expect(body.locator('strong')).toHaveText('3 jobs');
  await expect(body.getByRole('link', { name: 'the log' })).toHaveAttribute('href', 'https://example.com/log');
  await expect(body).not.toContainText('**');
  await page.keyboard.press('Escape');

  // The live feed: the title is a link to the push's own page, which opens.
  await page.getByRole('tab', { name: 'Live feed' }).click();
  const link = page.getByRole('list', { name: 'Received pushes' }).getByRole('link', { name: 'Nightly backup' });
  await expect(link).toHaveAttribute('href', /\/m\/[^/]+$/);
  const href = (await link.getAttribute('href'))!;
  const pageAnswer = await page.request.get(new URL(href, url).href);
  expect(pageAnswer.status()).toBe(200);
  expect(await pageAnswer.text()).toContain('Nightly backup');
  watch.expectClean();
});
