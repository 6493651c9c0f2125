import { describe, expect, it } from 'vitest';
import { errorWindowOptions, isAppUrl, mainWindowOptions } from './window-options';

describe('desktop window options', () => {
  it('isolates the renderer from Node: context isolation, sandbox, no node integration anywhere, no webview', () => {
    const prefs = mainWindowOptions('/app/preload.cjs').webPreferences!;
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      preload: '/app/preload.cjs',
    });
  });

  it('opens hidden (shown when ready) at the remembered place, never below the minimum size', () => {
    const options = mainWindowOptions('/p.cjs', { bounds: { x: 10, y: 20, width: 1400, height: 900 }, icon: '/i.png', additionalArguments: ['--pennypost-version=1.2.3'] });
    expect(options).toMatchObject({ x: 10, y: 20, width: 1400, height: 900, minWidth: 1024, minHeight: 700, show: false, icon: '/i.png' });
    expect(options.webPreferences?.additionalArguments).toEqual(['--pennypost-version=1.2.3']);
    const fresh = mainWindowOptions('/p.cjs');
    expect(fresh.x).toBeUndefined();
    expect(fresh).toMatchObject({ width: 1280, height: 820 });
  });

  it('gives the start-error window no preload and no JavaScript at all', () => {
    const options = errorWindowOptions('PennyPost could not start');
    expect(options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, javascript: false });
    expect(options.webPreferences?.preload).toBeUndefined();
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
