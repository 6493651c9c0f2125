import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHANNEL_TYPES, channelConfigParams, channelConfigShapes, channelDriver, channelTypeInfos, DEFAULT_CHANNEL_TYPE } from '.';

/** The registry: every driver once, the API's config params and the UI's descriptions built from the drivers. */
describe('channel registry', () => {
  it('knows each type by its driver', () => {
    expect(CHANNEL_TYPES).toEqual(['wechat', 'desktop', 'webhook', 'wecom', 'wecom-app', 'dingtalk', 'feishu', 'telegram', 'discord', 'slack', 'email']);
    for (const type of CHANNEL_TYPES) expect(channelDriver(type).type).toBe(type);
    expect(() => channelDriver('carrier-pigeon')).toThrow(/no channel driver/);
    expect(CHANNEL_TYPES).toContain(DEFAULT_CHANNEL_TYPE);
  });

  it('takes every driver’s config fields as optional params, described with their type', () => {
    const params = JSON.parse(JSON.stringify(channelConfigParams())) as { properties: Record<string, { description: string }>; required?: string[]; additionalProperties: boolean };
    expect(Object.keys(params.properties)).toEqual([
      'appId',
      'appSecret',
      'apiBase',
      'tokenMode',
      'format',
      'url',
      'token',
      'priority',
      'webhookUrl',
      'wecomFormat',
      'corpId',
      'agentId',
      'corpSecret',
      'wecomApiBase',
      'wecomAppFormat',
      'signingSecret',
      'botToken',
      'telegramApiBase',
      'smtpHost',
      'smtpPort',
      'smtpSecurity',
      'smtpUser',
      'smtpPassword',
      'fromAddress',
      'fromName',
      'smtpCaCert',
    ]);
    expect(params.required ?? []).toEqual([]);
    expect(params.additionalProperties).toBe(false);
    expect(params.properties).toMatchObject({ appSecret: { description: expect.stringMatching(/^wechat: /) }, token: { description: expect.stringMatching(/^webhook: /) } });
    expect(channelConfigShapes()).toBe(
      'wechat config: `{appId, appSecret, apiBase?, tokenMode?}`; desktop config: `{}`; webhook config: `{format, url?, token?, priority?}`; ' +
        'wecom config: `{webhookUrl, wecomFormat?}`; wecom-app config: `{corpId, agentId, corpSecret, wecomApiBase?, wecomAppFormat?}`; dingtalk config: `{webhookUrl, signingSecret?}`; feishu config: `{webhookUrl, signingSecret?}`; ' +
        'telegram config: `{botToken, telegramApiBase?}`; discord config: `{webhookUrl}`; slack config: `{webhookUrl}`; ' +
        'email config: `{smtpHost, smtpPort?, smtpSecurity?, smtpUser?, smtpPassword?, fromAddress, fromName?, smtpCaCert?}`',
    );
  });

  it('describes each type for the UI’s forms', () => {
    const infos = channelTypeInfos();
    const wechat = infos.at(0)!;
    const webhook = infos.at(2)!;
    expect(wechat).toMatchObject({ type: 'wechat', recipients: true, templates: true, summary: ['appId', 'apiBase'] });
    expect(wechat.fields.map((f) => [f.name, f.kind, f.required, f.secret])).toEqual([
      ['appId', 'text', true, false],
      ['appSecret', 'text', true, true],
      ['apiBase', 'text', false, false],
      ['tokenMode', 'choice', false, false],
    ]);
    expect(wechat.fields[2]?.example).toBe('https://api.weixin.qq.com');
    expect(infos.at(1)).toEqual({ type: 'desktop', fields: [], recipients: false, templates: false, summary: [] });
    expect(webhook.fields.find((f) => f.name === 'format')).toMatchObject({ kind: 'choice', required: true, options: ['ntfy', 'gotify', 'bark', 'json'] });
    expect(webhook.fields.find((f) => f.name === 'priority')).toMatchObject({ kind: 'integer', minimum: 0, maximum: 5 });
  });
});

describe('channel words in the UI', () => {
  const language = (name: string) => JSON.parse(readFileSync(path.join(import.meta.dirname, '../../../renderer/src/i18n', name), 'utf8')) as { push: Record<string, any> };

  it('every type, field and choice has its words in both languages (keys made from the driver’s type and field names)', () => {
    for (const name of ['en.json', 'zh-CN.json']) {
      const { push } = language(name);
      for (const info of channelTypeInfos()) {
        expect(push.channelTypes[info.type], `${name}: push.channelTypes.${info.type}`).toEqual(expect.any(String));
        if (info.recipients) expect(push.channelForms[info.type]?.address, `${name}: push.channelForms.${info.type}.address`).toEqual(expect.any(String));
        for (const field of info.fields) {
          const words = push.channelForms[info.type]?.fields?.[field.name];
          expect(words?.label, `${name}: push.channelForms.${info.type}.fields.${field.name}.label`).toEqual(expect.any(String));
          for (const option of field.options ?? []) expect(words?.options?.[option], `${name}: ${info.type}.${field.name} option ${option}`).toEqual(expect.any(String));
        }
      }
    }
  });
});
