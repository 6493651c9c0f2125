import { describe, expect, it } from 'vitest';
import { checkNotify, checkOpenExternal, versionFromArgv, VERSION_ARG_PREFIX } from './ipc';

const ORIGIN = 'http://127.0.0.1:5733';

describe('preload bridge requests (checked in the main process)', () => {
  it('opens only safe external URLs, and only when our own page asks', () => {
    expect(checkOpenExternal(`${ORIGIN}/settings`, ORIGIN, 'https://example.com/docs')).toBe('https://example.com/docs');
    expect(checkOpenExternal(`${ORIGIN}/`, ORIGIN, 'file:///etc/passwd')).toBeNull();
    expect(checkOpenExternal(`${ORIGIN}/`, ORIGIN, { href: 'https://x' })).toBeNull();
    expect(checkOpenExternal(`${ORIGIN}/`, ORIGIN, `https://example.com/${'a'.repeat(5000)}`)).toBeNull();
    expect(checkOpenExternal('https://evil.example/', ORIGIN, 'https://example.com/')).toBeNull();
    expect(checkOpenExternal('', ORIGIN, 'https://example.com/')).toBeNull();
  });

  it('shows notifications the page asks for only with a sane title and body', () => {
    expect(checkNotify(`${ORIGIN}/`, ORIGIN, { title: ' Saved ', body: 'ok' })).toEqual({ title: 'Saved', body: 'ok' });
    expect(checkNotify(`${ORIGIN}/`, ORIGIN, { title: 'Saved' })).toEqual({ title: 'Saved', body: '' });
    expect(checkNotify(`${ORIGIN}/`, ORIGIN, { title: '' })).toBeNull();
    expect(checkNotify(`${ORIGIN}/`, ORIGIN, { title: 'x'.repeat(257) })).toBeNull();
    expect(checkNotify(`${ORIGIN}/`, ORIGIN, { title: 'x', body: 42 })).toBeNull();
    expect(checkNotify(`${ORIGIN}/`, ORIGIN, null)).toBeNull();
    expect(checkNotify('https://evil.example/', ORIGIN, { title: 'x' })).toBeNull();
  });

  it('passes the app version to the preload through argv', () => {
    expect(versionFromArgv(['electron', `${VERSION_ARG_PREFIX}0.1.0`])).toBe('0.1.0');
    expect(versionFromArgv(['electron'])).toBe('');
    expect(versionFromArgv([`${VERSION_ARG_PREFIX}<script>`])).toBe('');
  });
});
