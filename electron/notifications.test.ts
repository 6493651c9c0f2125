import { describe, expect, it } from 'vitest';
import type { DesktopMessage } from '../server/push/desktop';
import { messagePageUrl, notificationFor, plainText } from './notifications';

const ORIGIN = 'http://127.0.0.1:5733';
const message = (overrides: Partial<DesktopMessage> = {}): DesktopMessage => ({
  id: 'p1',
  userId: 'u1',
  appId: 'a1',
  appName: 'Home server',
  title: 'Backup finished',
  desp: '## Result\n**42** files, see [the log](https://example.com/log)\n```\nraw output\n```',
  url: '/m/AbC_123-x',
  createdAt: 0,
  ...overrides,
});

describe('desktop notifications', () => {
  it('shows the title, the app as subtitle and the text without markdown', () => {
    expect(notificationFor(message())).toEqual({ title: 'Backup finished', subtitle: 'Home server', body: 'Result 42 files, see the log' });
  });

  it('falls back to the app name when the push has no title, and keeps bodies short', () => {
    const note = notificationFor(message({ title: '  ', desp: 'x'.repeat(1000) }));
    expect(note.title).toBe('Home server');
    expect(note.body.length).toBe(180);
    expect(note.body.endsWith('…')).toBe(true);
  });

  it('does not pass HTML through', () => {
    expect(plainText('<img src=x onerror=alert(1)>hello <b>there</b>')).toBe('hello there');
  });

  it('a click opens the message page on the local server, whatever base URL the push carried', () => {
    expect(messagePageUrl('/m/AbC_123-x', ORIGIN)).toBe(`${ORIGIN}/m/AbC_123-x`);
    expect(messagePageUrl('/m/01JAB3.Zm9v_bar-1', ORIGIN)).toBe(`${ORIGIN}/m/01JAB3.Zm9v_bar-1`);
    expect(messagePageUrl('https://push.example.org/m/AbC_123-x', ORIGIN)).toBe(`${ORIGIN}/m/AbC_123-x`);
    expect(messagePageUrl('', ORIGIN)).toBe(`${ORIGIN}/`);
    expect(messagePageUrl('https://evil.example/phish', ORIGIN)).toBe(`${ORIGIN}/`);
    expect(messagePageUrl('/m/../../etc/passwd', ORIGIN)).toBe(`${ORIGIN}/`);
    expect(messagePageUrl('/m/a.b.c', ORIGIN)).toBe(`${ORIGIN}/`);
    expect(messagePageUrl('/m/a/../../api', ORIGIN)).toBe(`${ORIGIN}/`);
    expect(messagePageUrl('javascript:alert(1)', ORIGIN)).toBe(`${ORIGIN}/`);
  });
});
