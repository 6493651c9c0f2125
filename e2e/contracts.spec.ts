import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';

/**
 * Contracts of the UI that need no browser: both languages carry every string.
 */
const root = path.resolve(import.meta.dirname, '..');

type Tree = { [key: string]: string | Tree };
const PLURAL = /_(zero|one|two|few|many|other)$/;

function leaves(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const full = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(full, value);
    else for (const [k, v] of leaves(value, full)) out.set(k, v);
  }
  return out;
}
const load = (name: string) => leaves(JSON.parse(readFileSync(path.join(root, 'renderer/src/i18n', name), 'utf8')) as Tree);
/** Plural forms differ by language (English one/other, Chinese other): compare the base keys. */
const base = (key: string) => key.replace(PLURAL, '');
const placeholders = (text: string) => [...text.matchAll(/\{\{\s*(\w+)/g)].map((m) => m[1]).sort();

test('English and Simplified Chinese have the same keys, none empty, with the same placeholders', () => {
  const en = load('en.json');
  const zh = load('zh-CN.json');
  const enKeys = [...new Set([...en.keys()].map(base))].sort();
  const zhKeys = [...new Set([...zh.keys()].map(base))].sort();
  expect(zhKeys).toEqual(enKeys);
  for (const [key, value] of [...en, ...zh]) expect(value.trim(), key).not.toBe('');
  // every English plural has an "other" form in Chinese, and the placeholders agree
  for (const key of enKeys) {
    const enText = en.get(key) ?? en.get(`${key}_other`) ?? '';
    const zhText = zh.get(key) ?? zh.get(`${key}_other`);
    expect(zhText, `${key} in zh-CN`).toBeDefined();
    expect(placeholders(zhText ?? ''), key).toEqual(placeholders(enText));
  }
});

test('Simplified Chinese is translated (not English copied over)', () => {
  const en = load('en.json');
  const zh = load('zh-CN.json');
  const same = [...zh].filter(([key, value]) => /[A-Za-z]{3}/.test(value) && !/[\u4e00-\u9fff]/.test(value) && en.get(key) === value).map(([key]) => key);
  // Names that stay as they are in Chinese UIs (brands, formats, codes).
  // WeCom's own console names the application's AgentId and Secret in English, also in Chinese.
  const allowed =
    /^(push\.(formats|wechatAppId|wechatSecret|channelTypes\.webhook|urlForms|channelForms\.wecom-app\.fields\.(agentId|corpSecret)\.label)|savings\.achievementProgress|settings\.rateHint)/;
  expect(same.filter((key) => !allowed.test(key))).toEqual([]);
});

test('Chinese says 资产 for an asset everywhere and 账号 for a sign-in account, never 账户 for either (issue 36, finding 17)', () => {
  const zh = load('zh-CN.json');
  expect([...zh].filter(([, value]) => value.includes('账户')).map(([key]) => key)).toEqual([]);
  // The screens and fields that name assets use the one word.
  for (const key of ['assets.title', 'assets.new', 'records.asset', 'records.fromAsset', 'records.toAsset', 'dashboard.createAsset', 'errors.c2001'])
    expect(zh.get(key), key).toContain('资产');
  // Recurring's list is not called "Rules" (Settings → Rules is another thing).
  expect(zh.get('rules.tab')).toBe('规则');
  expect(zh.get('recurring.rules')).not.toBe(zh.get('rules.tab'));
  expect(load('en.json').get('recurring.rules')).not.toBe('Rules');
});
