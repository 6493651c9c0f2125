import { expect, test, type Page } from '@playwright/test';
import { api, registerAccount, signInPage, type Account } from './api';
import { startE2eServer, watchPage } from './support';

/**
 * The WeCom application channel in the Push screen: the channel form is built from the driver's
 * config schema, so the new type shows with its own words in English and Chinese, and a channel
 * made with it is listed.
 */
let running: Awaited<ReturnType<typeof startE2eServer>>;
test.beforeAll(async () => {
  running = await startE2eServer();
});
test.afterAll(async () => {
  // Unset when beforeAll failed.
  await (running as typeof running | undefined)?.stop();
});

const WORDS = {
  en: {
    newChannel: 'New channel',
    name: 'Name',
    type: 'Type',
    typeName: 'WeCom app (reaches WeChat)',
    hint: /WeChat plug-in/,
    fields: ['Corp ID', 'AgentId', 'Secret', 'API address'],
    form: 'Message form',
    textcard: 'Text card (recommended)',
    create: 'Create channel',
  },
  'zh-CN': {
    newChannel: '新建通道',
    name: '名称',
    type: '类型',
    typeName: '企业微信应用（可达微信）',
    hint: /微信插件/,
    fields: ['企业 ID（CorpID）', 'AgentId', 'Secret', 'API 地址'],
    form: '消息格式',
    textcard: '文本卡片（推荐）',
    create: '创建通道',
  },
} as const;

async function openForm(page: Page, account: Account, language: keyof typeof WORDS) {
  const words = WORDS[language];
  await signInPage(page, account, { language });
  await page.goto(`${running.server.url}/push?tab=channels`);
  await page.getByRole('button', { name: words.newChannel }).click();
  const dialog = page.getByRole('dialog', { name: words.newChannel });
  await dialog.getByRole('combobox', { name: words.type }).click();
  await page.getByRole('option', { name: words.typeName }).click();
  await expect(dialog.getByRole('combobox', { name: words.type })).toHaveValue(words.typeName);
  await expect(dialog.getByText(words.hint)).toBeVisible();
  for (const label of words.fields) await expect(dialog.getByRole('textbox', { name: label, exact: true })).toBeVisible();
  await expect(dialog.getByRole('combobox', { name: words.form })).toHaveValue(words.textcard);
  return dialog;
}

for (const language of ['en', 'zh-CN'] as const) {
  test(`the channel form offers the WeCom application with its words (${language}), and creates one`, async ({ page }) => {
    const watch = watchPage(page);
    const words = WORDS[language];
    const owner = await registerAccount(running.server.url, `wecom${language.replace('-', '').toLowerCase()}`);
    const dialog = await openForm(page, owner, language);
    await dialog.getByRole('textbox', { name: words.name }).fill('WeCom');
    await dialog.getByRole('textbox', { name: words.fields[0], exact: true }).fill('ww0123456789abcdef');
    await dialog.getByRole('textbox', { name: 'AgentId', exact: true }).fill('1000002');
    await dialog.getByRole('textbox', { name: 'Secret', exact: true }).fill('AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcde');
    // The API address left empty: WeCom's own (the second account is a member, who may not point a channel at this computer).
    await dialog.getByRole('button', { name: words.create }).click();
    await expect(dialog).toHaveCount(0);
    const channels = await api<{ list: Array<{ type: string; config: Record<string, unknown> }> }>(running.server.url, owner.token, 'push.queryChannels', {});
    expect(channels.list).toEqual([
      expect.objectContaining({
        type: 'wecom-app',
        config: { corpId: 'ww0123456789abcdef', agentId: 1000002, corpSecret: '••••bcde', wecomApiBase: 'https://qyapi.weixin.qq.com', wecomAppFormat: 'textcard' },
      }),
    ]);
    await expect(page.getByRole('cell', { name: words.typeName })).toBeVisible();
    watch.expectClean();
  });
}
