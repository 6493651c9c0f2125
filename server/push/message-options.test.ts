import { describe, expect, it } from 'vitest';
import { DomainError } from '../lib/errors';
import { buildWebhookRequest, type WebhookConfig, type WebhookMessage } from './channels/webhook-api';
import { messageOptionsOf } from './message-options';

describe('priority and group of a push', () => {
  it('reads the four words, ntfy’s 1–5 and its and Bark’s words; nothing given is normal with no group', () => {
    expect(messageOptionsOf({})).toEqual({ priority: 'normal', group: '' });
    const priority = (value: unknown) => messageOptionsOf({ priority: value }).priority;
    expect(['low', 'normal', 'high', 'urgent'].map(priority)).toEqual(['low', 'normal', 'high', 'urgent']);
    expect([1, 2, 3, 4, 5].map(priority)).toEqual(['low', 'low', 'normal', 'high', 'urgent']);
    expect(['min', 'default', 'MAX', 'passive', 'timeSensitive', 'critical', ' High ', ''].map(priority)).toEqual([
      'low',
      'normal',
      'urgent',
      'low',
      'high',
      'urgent',
      'high',
      'normal',
    ]);
    expect(messageOptionsOf({ group: '  backups ' }).group).toBe('backups');
  });

  it('refuses an unknown priority and a long group, naming the field', () => {
    const refusal = (input: Record<string, unknown>) => {
      try {
        messageOptionsOf(input);
      } catch (error) {
        return error instanceof DomainError ? { status: error.status, field: error.details?.field, message: error.message } : error;
      }
      return null;
    };
    expect(refusal({ priority: 'loud' })).toMatchObject({ status: 400, message: expect.stringContaining('"loud"') });
    expect(refusal({ priority: 7 })).toMatchObject({ status: 400 });
    expect(refusal({ group: 'g'.repeat(65) })).toMatchObject({ status: 400, message: 'group is longer than 64 characters (65).' });
    expect(refusal({ priority: ['high', 'low'] })).toMatchObject({ status: 400 });
  });
});

describe('priority and group on the webhook formats', () => {
  const message = (priority: WebhookMessage['priority'], group = ''): WebhookMessage => ({ pushId: 'm1', appName: 'Backups', title: 'T', desp: 'D', time: 1, priority, group });
  const body = (config: WebhookConfig, m: WebhookMessage) => JSON.parse(buildWebhookRequest(config, 'key', m).body) as Record<string, unknown>;
  const ntfy: WebhookConfig = { format: 'ntfy', url: '', token: '', priority: 3 };
  const gotify: WebhookConfig = { format: 'gotify', url: 'http://gotify.lan', token: '', priority: 0 };
  const bark: WebhookConfig = { format: 'bark', url: '', token: '', priority: 0 };

  it('maps low/high/urgent onto ntfy 2/4/5 and Gotify 4/8/10; normal keeps the channel’s setting', () => {
    expect(['low', 'normal', 'high', 'urgent'].map((p) => body(ntfy, message(p as WebhookMessage['priority'])).priority)).toEqual([2, 3, 4, 5]);
    expect(['low', 'normal', 'high', 'urgent'].map((p) => body(gotify, message(p as WebhookMessage['priority'])).priority)).toEqual([4, undefined, 8, 10]);
  });

  it('gives Bark its interruption level and groups by the push’s group, else the app', () => {
    expect(body(bark, message('urgent', 'nightly'))).toMatchObject({ level: 'critical', group: 'nightly' });
    expect(body(bark, message('low'))).toMatchObject({ level: 'passive', group: 'Backups' });
    expect(body(bark, message('normal'))).not.toHaveProperty('level');
  });
});
