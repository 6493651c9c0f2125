import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { APP_CSP, attachNavigationPolicy, denyPermissions, isExternalUrlAllowed, permissionAllowed, withCsp } from './navigation';

const ORIGIN = 'http://127.0.0.1:5733';

/** A WebContents stand-in: records the window-open handler and emits navigation events. */
function fakeContents() {
  const emitter = new EventEmitter();
  let openHandler: ((details: { url: string }) => { action: string }) | null = null;
  return {
    on: (event: string, listener: (...args: any[]) => void) => emitter.on(event, listener),
    setWindowOpenHandler: (handler: (details: { url: string }) => { action: 'deny' } | { action: 'allow' }) => {
      openHandler = handler;
    },
    /** Emits `event` like Chromium does; true when the policy blocked it. */
    navigate(event: string, url?: string): boolean {
      let prevented = false;
      emitter.emit(event, { preventDefault: () => (prevented = true) }, url);
      return prevented;
    },
    open: (url: string) => openHandler!({ url }),
  };
}

describe('navigation policy', () => {
  it('keeps the window on the app origin and sends other web pages to the system browser', () => {
    const contents = fakeContents();
    const opened: string[] = [];
    attachNavigationPolicy(
      contents,
      () => ORIGIN,
      (url) => opened.push(url),
    );
    expect(contents.navigate('will-navigate', `${ORIGIN}/records`)).toBe(false);
    expect(contents.navigate('will-navigate', 'https://example.com/help')).toBe(true);
    expect(contents.navigate('will-navigate', 'http://127.0.0.1:5734/')).toBe(true);
    expect(contents.navigate('will-redirect', 'https://evil.example/phish')).toBe(true);
    expect(contents.navigate('will-redirect', `${ORIGIN}/m/abc`)).toBe(false);
    expect(opened).toEqual(['https://example.com/help', 'http://127.0.0.1:5734/', 'https://evil.example/phish']);
  });

  it('never opens an Electron window: window.open is denied and web links go to the browser', () => {
    const contents = fakeContents();
    const opened: string[] = [];
    attachNavigationPolicy(
      contents,
      () => ORIGIN,
      (url) => opened.push(url),
    );
    expect(contents.open('https://example.com/')).toEqual({ action: 'deny' });
    expect(contents.open(`${ORIGIN}/files/x`)).toEqual({ action: 'deny' });
    expect(contents.open('file:///etc/passwd')).toEqual({ action: 'deny' });
    expect(contents.open('javascript:alert(1)')).toEqual({ action: 'deny' });
    expect(opened).toEqual(['https://example.com/', `${ORIGIN}/files/x`]);
  });

  it('refuses to hand dangerous schemes to the OS and refuses <webview>', () => {
    const contents = fakeContents();
    const opened: string[] = [];
    attachNavigationPolicy(
      contents,
      () => ORIGIN,
      (url) => opened.push(url),
    );
    for (const url of ['file:///C:/Windows/system32/calc.exe', 'smb://server/share', 'ms-msdt:/id', 'javascript:alert(1)', 'data:text/html,hi']) {
      expect(contents.navigate('will-navigate', url)).toBe(true);
    }
    expect(opened).toEqual([]);
    expect(contents.navigate('will-attach-webview')).toBe(true);
  });

  it('accepts only http(s) with a host and no credentials, and mailto', () => {
    expect(isExternalUrlAllowed('https://example.com/a?b')).toBe(true);
    expect(isExternalUrlAllowed('mailto:me@example.com')).toBe(true);
    expect(isExternalUrlAllowed('https://user:pass@example.com/')).toBe(false);
    expect(isExternalUrlAllowed('ftp://example.com/')).toBe(false);
    expect(isExternalUrlAllowed('vscode://file/etc')).toBe(false);
    expect(isExternalUrlAllowed('not a url')).toBe(false);
  });
});

describe('permission policy', () => {
  function fakeSession() {
    const handlers: { request?: (c: unknown, p: string, cb: (g: boolean) => void) => void; check?: (c: unknown, p: string, origin: string) => boolean } = {};
    return {
      handlers,
      setPermissionRequestHandler: (h: NonNullable<typeof handlers.request>) => void (handlers.request = h),
      setPermissionCheckHandler: (h: NonNullable<typeof handlers.check>) => void (handlers.check = h),
    };
  }

  it('denies every permission request without prompting (camera, microphone, location, notifications, USB…)', () => {
    const session = fakeSession();
    denyPermissions(session, () => ORIGIN);
    for (const permission of ['media', 'geolocation', 'notifications', 'midi', 'openExternal', 'clipboard-read', 'fullscreen', 'usb', 'hid', 'serial']) {
      let granted: boolean | undefined;
      session.handlers.request!(null, permission, (g) => (granted = g));
      expect(granted, permission).toBe(false);
      expect(session.handlers.check!(null, permission, ORIGIN), permission).toBe(false);
    }
  });

  it('allows only sanitized clipboard writes, and only from our own pages', () => {
    expect(permissionAllowed('clipboard-sanitized-write', ORIGIN, ORIGIN)).toBe(true);
    expect(permissionAllowed('clipboard-sanitized-write', 'https://evil.example', ORIGIN)).toBe(false);
    expect(permissionAllowed('clipboard-sanitized-write', null, ORIGIN)).toBe(false);
    expect(permissionAllowed('clipboard-read', ORIGIN, ORIGIN)).toBe(false);
  });
});

describe('CSP on every page', () => {
  it("adds the app's strict policy to a response that has none", () => {
    const headers = withCsp({ 'content-type': ['text/html'] });
    expect(headers['Content-Security-Policy']).toEqual([APP_CSP]);
    expect(APP_CSP).toContain("script-src 'self'");
    expect(APP_CSP).not.toContain('unsafe-inline');
  });

  it("keeps the server's own policy (any header case)", () => {
    const headers = withCsp({ 'content-security-policy': "default-src 'none'" });
    expect(headers['content-security-policy']).toEqual(["default-src 'none'"]);
    expect(headers['Content-Security-Policy']).toBeUndefined();
    expect(withCsp(undefined)['Content-Security-Policy']).toEqual([APP_CSP]);
  });
});
