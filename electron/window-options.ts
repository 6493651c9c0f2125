import type { BrowserWindowConstructorOptions } from 'electron';

/** The window PennyPost opens: the renderer is an untrusted web page talking HTTP to /api. */
export function mainWindowOptions(preloadPath: string): BrowserWindowConstructorOptions {
  return {
    width: 1280,
    height: 820,
    minWidth: 1024,
    minHeight: 700,
    title: 'PennyPost',
    show: false,
    webPreferences: {
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      preload: preloadPath,
    },
  };
}

/** Only pages of our own server may load in the window; everything else opens in the browser. */
export function isAppUrl(candidate: string, appOrigin: string): boolean {
  try {
    return new URL(candidate).origin === appOrigin;
  } catch {
    return false;
  }
}
