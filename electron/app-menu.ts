import type { MenuItemConstructorOptions } from 'electron';

export interface AppMenuActions {
  /** Native about panel (version, Electron, Chrome). */
  about(): void;
  /** The UI's about page with the licences of bundled software. */
  licences(): void;
  /** The UI's settings page. */
  settings(): void;
  showDataFolder(): void;
  openDocs(): void;
  quit(): void;
}

export interface AppMenuOptions {
  platform: NodeJS.Platform;
  appName: string;
  /** Developer tools only in development builds (not packaged). */
  dev: boolean;
}

/** The application menu with the usual items for each platform. */
export function applicationMenuTemplate(options: AppMenuOptions, actions: AppMenuActions): MenuItemConstructorOptions[] {
  const mac = options.platform === 'darwin';
  const menu: MenuItemConstructorOptions[] = [];
  if (mac) {
    menu.push({
      label: options.appName,
      submenu: [
        { label: `About ${options.appName}`, click: () => actions.about() },
        { type: 'separator' },
        { label: 'Settings…', accelerator: 'Cmd+,', click: () => actions.settings() },
        { type: 'separator' },
        { role: 'services' },
        { type: 'separator' },
        { role: 'hide' },
        { role: 'hideOthers' },
        { role: 'unhide' },
        { type: 'separator' },
        { label: `Quit ${options.appName}`, accelerator: 'Cmd+Q', click: () => actions.quit() },
      ],
    });
  }
  menu.push({
    label: '&File',
    submenu: mac
      ? [{ role: 'close' }]
      : [
          { label: 'Settings…', accelerator: 'Ctrl+,', click: () => actions.settings() },
          { label: 'Show data folder', click: () => actions.showDataFolder() },
          { type: 'separator' },
          { role: 'close', label: 'Close window' },
          { label: `Quit ${options.appName}`, accelerator: 'Ctrl+Q', click: () => actions.quit() },
        ],
  });
  menu.push({
    label: '&Edit',
    submenu: [
      { role: 'undo' },
      { role: 'redo' },
      { type: 'separator' },
      { role: 'cut' },
      { role: 'copy' },
      { role: 'paste' },
      ...(mac ? ([{ role: 'pasteAndMatchStyle' }] as MenuItemConstructorOptions[]) : []),
      { role: 'delete' },
      { role: 'selectAll' },
    ],
  });
  menu.push({
    label: '&View',
    submenu: [
      { role: 'reload' },
      ...(options.dev ? ([{ role: 'forceReload' }, { role: 'toggleDevTools' }] as MenuItemConstructorOptions[]) : []),
      { type: 'separator' },
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
    ],
  });
  menu.push({
    label: '&Window',
    submenu: mac ? [{ role: 'minimize' }, { role: 'zoom' }, { type: 'separator' }, { role: 'front' }] : [{ role: 'minimize' }, { role: 'close' }],
  });
  menu.push({
    label: '&Help',
    role: 'help',
    submenu: [
      { label: 'PennyPost documentation', click: () => actions.openDocs() },
      ...(mac ? ([{ label: 'Show data folder', click: () => actions.showDataFolder() }] as MenuItemConstructorOptions[]) : []),
      { label: 'Third-party licences', click: () => actions.licences() },
      ...(mac ? [] : ([{ type: 'separator' }, { label: `About ${options.appName}`, click: () => actions.about() }] as MenuItemConstructorOptions[])),
    ],
  });
  return menu;
}
