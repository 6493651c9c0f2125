import { describe, expect, it } from 'vitest';
import { isAppUrl, mainWindowOptions } from './window-options';

describe('desktop window policy', () => {
  it('isolates the renderer from Node', () => {
    const prefs = mainWindowOptions('/app/preload.cjs').webPreferences!;
    expect(prefs).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, preload: '/app/preload.cjs' });
  });

  it('lets only the app origin load in the window', () => {
    const origin = 'http://127.0.0.1:5733';
    expect(isAppUrl('http://127.0.0.1:5733/records?x=1', origin)).toBe(true);
    expect(isAppUrl('http://127.0.0.1:5734/', origin)).toBe(false);
    expect(isAppUrl('http://localhost:5733/', origin)).toBe(false);
    expect(isAppUrl('https://example.com/', origin)).toBe(false);
    expect(isAppUrl('javascript:alert(1)', origin)).toBe(false);
    expect(isAppUrl('not a url', origin)).toBe(false);
  });
});
