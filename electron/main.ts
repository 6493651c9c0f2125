/**
 * The desktop shell: boots PennyPost's server inside Electron's main process on 127.0.0.1,
 * opens a window on it, and closes the server (database included) on quit. Everything that
 * is not Electron glue lives in server/ and electron/*.ts modules that are tested in plain Node.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, dialog, shell } from 'electron';
import { startServer, type RunningServer } from '../server/server';
import { DataDirLockedError } from '../server/db/database';
import { isAppUrl, mainWindowOptions } from './window-options';

let server: RunningServer | null = null;
let window: BrowserWindow | null = null;

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (window) {
      if (window.isMinimized()) window.restore();
      window.focus();
    }
  });

  app.whenReady().then(async () => {
    const dataDir = process.env.PENNYPOST_DATA_DIR || app.getPath('userData');
    try {
      server = await startServer({
        dataDir,
        host: '127.0.0.1',
        port: process.env.PENNYPOST_PORT ? Number(process.env.PENNYPOST_PORT) : 0,
        rendererDir: path.join(app.getAppPath(), 'renderer'),
      });
    } catch (error) {
      const message = error instanceof DataDirLockedError ? error.message : `PennyPost could not start: ${(error as Error).message}`;
      dialog.showErrorBox('PennyPost', message);
      app.exit(2);
      return;
    }
    const origin = new URL(server.url).origin;
    window = new BrowserWindow(mainWindowOptions(path.join(path.dirname(fileURLToPath(import.meta.url)), 'preload.cjs')));
    window.webContents.setWindowOpenHandler(({ url }) => {
      if (url.startsWith('https:') || url.startsWith('http:')) void shell.openExternal(url);
      return { action: 'deny' };
    });
    window.webContents.on('will-navigate', (event, url) => {
      if (!isAppUrl(url, origin)) {
        event.preventDefault();
        if (url.startsWith('https:') || url.startsWith('http:')) void shell.openExternal(url);
      }
    });
    window.webContents.session.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
    window.once('ready-to-show', () => window?.show());
    await window.loadURL(server.url);
  });

  let quitting = false;
  app.on('before-quit', (event) => {
    if (quitting || !server) return;
    event.preventDefault();
    quitting = true;
    void server.close().finally(() => app.quit());
  });

  app.on('window-all-closed', () => {
    app.quit();
  });
}
