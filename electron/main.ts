/**
 * The desktop shell's entry: hands Electron's objects to DesktopShell (electron/shell.ts), where
 * everything else lives and is tested in plain Node. Boots PennyPost's server in this process on
 * 127.0.0.1, opens the window on it, and closes the server (database included) before quitting.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, clipboard, ipcMain, Menu, nativeImage, Notification, safeStorage, screen, session, shell, Tray } from 'electron';
import { desktopLaunchOptions } from '../server/config/launch-options';
import { shouldWatchParent, watchParent } from '../server/lib/parent-watch';
import { startServer } from '../server/server';
import { DesktopShell } from './shell';

const here = path.dirname(fileURLToPath(import.meta.url));
app.setName('PennyPost');
// Started by `npm start`: quit (closing the server and database) if that launcher dies.
if (shouldWatchParent(process.env)) watchParent(() => app.quit());
// Windows shows notifications only for an app with this id (electron-builder.yml appId).
if (process.platform === 'win32') app.setAppUserModelId('org.pennypost.desktop');
// One folder for everything, shared with the headless server; Chromium's own files in a subfolder.
const dataDir = path.resolve(desktopLaunchOptions(process.argv, process.env).dataDir);
app.setPath('userData', dataDir);
app.setPath('sessionData', path.join(dataDir, 'chromium'));

/** Electron drops a Notification that nothing references, and its click with it. */
const liveNotifications = new Set<Notification>();

const desktop = new DesktopShell({
  app,
  platform: process.platform,
  argv: process.argv,
  env: process.env,
  dataDir,
  preloadPath: path.join(here, 'preload.cjs'),
  rendererDir: path.join(app.getAppPath(), 'dist', 'renderer'),
  iconPath: path.join(here, 'icon.png'),
  trayIconPath: path.join(here, process.platform === 'darwin' ? 'trayTemplate.png' : 'tray.png'),
  startServer,
  newWindow: (options) => new BrowserWindow(options),
  newTray: (iconPath) => new Tray(nativeImage.createFromPath(iconPath)),
  showNotification: (note, onClick) => {
    if (!Notification.isSupported()) return;
    const notification = new Notification({ title: note.title, subtitle: note.subtitle, body: note.body, icon: path.join(here, 'icon.png') });
    liveNotifications.add(notification);
    notification.on('click', () => {
      liveNotifications.delete(notification);
      onClick();
    });
    notification.on('close', () => liveNotifications.delete(notification));
    notification.show();
  },
  buildMenu: (template) => Menu.buildFromTemplate(template),
  setApplicationMenu: (menu) => Menu.setApplicationMenu(menu as Menu),
  openExternal: (url) => void shell.openExternal(url),
  showItemInFolder: (fullPath) => shell.showItemInFolder(fullPath),
  copyText: (text) => clipboard.writeText(text),
  workAreas: () => {
    const primary = screen.getPrimaryDisplay();
    return [primary, ...screen.getAllDisplays().filter((d) => d.id !== primary.id)].map((d) => d.workArea);
  },
  safeStorage,
  get session() {
    return session.defaultSession;
  },
  handleIpc: (channel, handler) => ipcMain.handle(channel, (event, payload: unknown) => handler(event.senderFrame?.url ?? '', payload)),
  log: (level, message, details) => process.stderr.write(JSON.stringify({ level, msg: message, ...details, time: new Date().toISOString() }) + '\n'),
  now: () => Date.now(),
});

if (!desktop.claim()) {
  app.quit();
} else {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit());
  void app.whenReady().then(() => desktop.boot());
}
