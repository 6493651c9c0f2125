import path from 'node:path';
import type { BrowserWindowConstructorOptions, MenuItemConstructorOptions } from 'electron';
import { desktopLaunchOptions } from '../server/config/launch-options';
import type { ServiceMap } from '../server/app-context';
import type { Settings, SettingsPatch } from '../server/config/settings';
import { SecretProtectedError } from '../server/config/secrets';
import { DataDirLockedError } from '../server/db/database';
import type { DesktopMessage } from '../server/push/desktop';
import type { RunningServer, ServerOptions } from '../server/server';
import { applicationMenuTemplate } from './app-menu';
import { errorPageAction, errorPageDataUrl, startErrorPage, type StartErrorKind } from './error-page';
import { checkDesktopSignIn, checkNotify, checkOpenExternal, IPC_DESKTOP_SIGN_IN, IPC_NOTIFY, IPC_OPEN_EXTERNAL, VERSION_ARG_PREFIX } from './ipc';
import { safeStorageKeyProtector, type keychainUnavailableReason } from './key-protector';
import { watchLastPush, type LastPush } from './last-push';
import { applyLaunchAtLogin, startedHidden, type LoginItemApi } from './login-item';
import { attachNavigationPolicy, denyPermissions, withCsp, type PolicedContents, type PolicedSession } from './navigation';
import { messagePageUrl, notificationFor, type NativeNotification } from './notifications';
import { lanAddresses, ServerHost, windowUrlOf } from './server-host';
import { closeAction, installQuitSequence, quitWhenAllClosed, type QuitApp, type QuitSequence } from './shutdown';
import { claimSingleInstance, revealWindow, type RevealableWindow, type SingleInstanceApp } from './single-instance';
import { trayMenuTemplate, trayTooltip, type TrayState } from './tray-model';
import { errorWindowOptions, mainWindowOptions } from './window-options';
import { placeWindow, readWindowState, trackWindowState, writeWindowState, WINDOW_STATE_FILE, type Rect } from './window-state';

/**
 * The desktop shell's logic, with every Electron object passed in (electron/main.ts passes the
 * real ones; electron/shell.test.ts passes fakes and a real PennyPost server).
 */

/** An event listener; each `on` call says what its event passes (the emitters are Electron's objects or the tests' fakes). */
type Listener<A extends unknown[]> = (...args: A) => void;

export interface ShellContents extends PolicedContents {
  loadURL(url: string): Promise<void>;
  getURL(): string;
  on<A extends unknown[]>(event: string, listener: Listener<A>): unknown;
}

export interface ShellWindow extends RevealableWindow {
  readonly webContents: ShellContents;
  on<A extends unknown[]>(event: string, listener: Listener<A>): unknown;
  once<A extends unknown[]>(event: string, listener: Listener<A>): unknown;
  hide(): void;
  close(): void;
  destroy(): void;
  maximize(): void;
  setFullScreen(flag: boolean): void;
  getNormalBounds(): Rect;
  isMaximized(): boolean;
  isFullScreen(): boolean;
}

export interface ShellTray {
  setToolTip(text: string): void;
  setContextMenu(menu: unknown): void;
  on(event: 'click', listener: () => void): unknown;
  destroy(): void;
}

export interface ShellApp extends QuitApp, SingleInstanceApp, LoginItemApi {
  on<A extends unknown[]>(event: string, listener: Listener<A>): unknown;
  whenReady(): Promise<unknown>;
  getVersion(): string;
  getName(): string;
  readonly isPackaged: boolean;
  setAboutPanelOptions(options: { applicationName?: string; applicationVersion?: string; version?: string; copyright?: string; credits?: string; website?: string }): void;
  showAboutPanel(): void;
}

export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  getSelectedStorageBackend(): ReturnType<Parameters<typeof keychainUnavailableReason>[0]['getSelectedStorageBackend']>;
  encryptString(plain: string): Buffer;
  decryptString(sealed: Buffer): string;
}

export interface ShellSession extends PolicedSession {
  webRequest: {
    onHeadersReceived(
      listener: (
        details: { url: string; responseHeaders?: Record<string, string[] | string> },
        callback: (response: { responseHeaders?: Record<string, string[]> }) => void,
      ) => void,
    ): void;
  };
}

export interface ShellEnv {
  app: ShellApp;
  platform: NodeJS.Platform;
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Where the data lives: --data-dir, PENNYPOST_DATA_DIR, or the same default as the headless server (desktopLaunchOptions). */
  dataDir: string;
  /** Port tried first when PENNYPOST_PORT is not set (default 5733). */
  defaultPort?: number;
  preloadPath: string;
  rendererDir: string;
  /** 512×512 PNG (window icon on Linux/Windows) and the tray's small PNG. */
  iconPath: string;
  trayIconPath: string;
  startServer(options: ServerOptions): Promise<RunningServer>;
  newWindow(options: BrowserWindowConstructorOptions): ShellWindow;
  newTray(iconPath: string): ShellTray;
  showNotification(notification: NativeNotification, onClick: () => void): void;
  buildMenu(template: MenuItemConstructorOptions[]): unknown;
  setApplicationMenu(menu: unknown): void;
  openExternal(url: string): void;
  showItemInFolder(fullPath: string): void;
  copyText(text: string): void;
  /** Work areas of the displays, primary first. */
  workAreas(): Rect[];
  safeStorage: SafeStorageLike;
  session: ShellSession;
  handleIpc(channel: string, handler: (senderUrl: string, payload: unknown) => unknown): void;
  log(level: 'info' | 'warn' | 'error', message: string, details?: Record<string, unknown>): void;
  now(): number;
}

export const DOCS_URL = 'https://github.com/pennypost/pennypost#readme';

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function startErrorKind(error: unknown): StartErrorKind {
  if (error instanceof DataDirLockedError || (error as { code?: string } | null | undefined)?.code === 'DATA_DIR_LOCKED') return 'locked';
  if (error instanceof SecretProtectedError || /keychain/.test(describe(error))) return 'keys';
  return 'failed';
}

export class DesktopShell {
  readonly host: ServerHost;
  window: ShellWindow | null = null;
  errorWindow: ShellWindow | null = null;
  tray: ShellTray | null = null;
  private quit: QuitSequence | null = null;
  private lastPush: LastPush | null = null;
  private status: TrayState['status'] = 'starting';
  private unsubscribers: (() => void)[] = [];
  private flushWindowState: (() => void) | null = null;
  private hintedTray = false;
  /** Exit code when the start failed and the error window is closed. */
  exitCode = 0;

  constructor(private readonly env: ShellEnv) {
    // --port/--host in argv, else PENNYPOST_PORT/PENNYPOST_HOST: read as the headless server reads them.
    const { port, host } = desktopLaunchOptions(env.argv, env.env);
    this.host = new ServerHost({
      dataDir: env.dataDir,
      rendererDir: env.rendererDir,
      port,
      host,
      defaultPort: env.defaultPort,
      keyProtector: () => safeStorageKeyProtector(env.safeStorage, env.platform),
      startServer: (options) => env.startServer(options),
      onWarning: (message) => env.log('warn', message),
    });
  }

  get server(): RunningServer | null {
    return this.host.current;
  }

  get origin(): string {
    const server = this.server;
    return server ? new URL(windowUrlOf(server)).origin : 'null';
  }

  private settings(): Settings | null {
    return this.server?.app.settings.get() ?? null;
  }

  /**
   * Before 'ready': the single-instance lock and the quit sequence. Returns false when another
   * PennyPost of this user is running (it was asked to show itself; quit now).
   */
  claim(): boolean {
    const { app } = this.env;
    if (!claimSingleInstance(app, () => this.showWindow())) return false;
    this.quit = installQuitSequence(app, {
      beforeStop: () => this.teardown(),
      stop: () => this.host.stop(),
      onError: (error) => this.env.log('error', 'quit: server did not stop cleanly', { error: describe(error) }),
    });
    app.on('window-all-closed', () => {
      const settings = this.settings();
      if (
        quitWhenAllClosed({ closeToTray: settings?.desktop.closeToTray ?? false, hasTray: this.tray !== null, platform: this.env.platform, serverRunning: this.server !== null })
      ) {
        if (this.server) app.quit();
        else app.exit(this.exitCode);
      }
    });
    app.on('activate', () => {
      if (this.server) this.showWindow();
    });
    return true;
  }

  /** After 'ready': policies, menu, the server, the tray, and the window (unless started at login). */
  async boot(): Promise<boolean> {
    const { env } = this;
    env.session.webRequest.onHeadersReceived((details, callback) => callback({ responseHeaders: withCsp(details.responseHeaders) }));
    denyPermissions(env.session, () => this.origin);
    env.handleIpc(IPC_OPEN_EXTERNAL, (senderUrl, url) => {
      const allowed = checkOpenExternal(senderUrl, this.origin, url);
      if (allowed) env.openExternal(allowed);
      return allowed !== null;
    });
    env.handleIpc(IPC_NOTIFY, (senderUrl, payload) => {
      const note = checkNotify(senderUrl, this.origin, payload);
      if (note) env.showNotification({ title: note.title, body: note.body }, () => this.showWindow());
      return note !== null;
    });
    env.handleIpc(IPC_DESKTOP_SIGN_IN, (senderUrl) => {
      const users = this.server?.app.services.users;
      return checkDesktopSignIn(senderUrl, this.origin, users ? () => users.desktop.issue() : null);
    });
    // Set inside Electron; a plain Node (the shell's tests) has neither.
    const versions: { electron?: string; chrome?: string } = process.versions;
    env.app.setAboutPanelOptions({
      applicationName: 'PennyPost',
      applicationVersion: env.app.getVersion(),
      version: `Electron ${versions.electron ?? '—'} · Chrome ${versions.chrome ?? '—'}`,
      copyright: 'MIT licence. Third-party licences: Help › Third-party licences.',
      website: DOCS_URL,
    });
    env.setApplicationMenu(
      env.buildMenu(
        applicationMenuTemplate(
          { platform: env.platform, appName: 'PennyPost', dev: !env.app.isPackaged },
          {
            about: () => env.app.showAboutPanel(),
            licences: () => this.showWindow('/about'),
            settings: () => this.showWindow('/settings'),
            showDataFolder: () => env.showItemInFolder(path.join(env.dataDir, 'settings.json')),
            openDocs: () => env.openExternal(DOCS_URL),
            quit: () => env.app.quit(),
          },
        ),
      ),
    );
    return this.startServer();
  }

  /** Starts the server; on failure shows the error window (Try again comes back here). */
  async startServer(): Promise<boolean> {
    const { env } = this;
    this.status = 'starting';
    let server: RunningServer;
    try {
      server = await this.host.start();
    } catch (error) {
      const kind = startErrorKind(error);
      this.exitCode = kind === 'locked' ? 2 : 1;
      env.log('error', 'could not start', { kind, error: describe(error) });
      this.showStartError(kind, describe(error));
      return false;
    }
    this.status = 'running';
    env.log('info', `PennyPost listening on ${server.url}`, { keys: server.app.secrets.protection().mode });
    this.attachServer(server);
    if (!this.tray) this.createTray();
    this.renderTray();
    const retried = this.errorWindow !== null;
    if (retried || !startedHidden(env.argv, this.safeLoginSettings())) this.showWindow();
    // Only now (a window or the tray exists) may the error window go without quitting the app.
    const errorWindow = this.errorWindow;
    this.errorWindow = null;
    errorWindow?.destroy();
    return true;
  }

  private safeLoginSettings() {
    try {
      return this.env.platform === 'linux' ? null : this.env.app.getLoginItemSettings();
    } catch {
      return null;
    }
  }

  /** Hooks that live as long as one running server (a LAN restart makes a new one). */
  private attachServer(server: RunningServer): void {
    const { env } = this;
    for (const off of this.unsubscribers.splice(0)) off();
    let launchAtLogin = server.app.settings.get().desktop.launchAtLogin;
    const lanAtStart = server.app.settings.get().network.lan;
    this.applyLoginItem(launchAtLogin);
    this.unsubscribers.push(
      server.app.settings.onChange((settings) => {
        if (settings.desktop.launchAtLogin !== launchAtLogin) {
          launchAtLogin = settings.desktop.launchAtLogin;
          this.applyLoginItem(launchAtLogin);
        }
        // LAN access changed from the Settings screen (settings.update): listen on the new socket.
        if (settings.network.lan !== lanAtStart && this.status === 'running') void this.restartForLan();
        this.renderTray();
      }),
    );
    const push = (server.app.services as Partial<ServiceMap>).push;
    if (push) {
      this.unsubscribers.push(push.onDesktopMessage((message) => this.notify(message)));
    }
    this.unsubscribers.push(
      watchLastPush(server.app, (last) => {
        this.lastPush = last;
        this.renderTray();
      }),
    );
    if (this.window && !this.window.isDestroyed()) void this.load(this.window, windowUrlOf(server) + '/');
    env.log('info', 'desktop shell attached', { lan: server.app.settings.get().network.lan });
  }

  notify(message: DesktopMessage): void {
    if (!this.settings()?.desktop.notifications) return;
    this.env.showNotification(notificationFor(message), () => {
      const url = messagePageUrl(message.url, this.origin);
      this.showWindow(new URL(url).pathname);
    });
  }

  private applyLoginItem(enabled: boolean): void {
    const { env } = this;
    if (!env.app.isPackaged) {
      if (enabled) env.log('warn', 'launch at login works only in the installed app (this is a development run)');
      return;
    }
    try {
      const where = applyLaunchAtLogin(enabled, { platform: env.platform, app: env.app, exec: env.env.APPIMAGE || process.execPath, configHome: env.env.XDG_CONFIG_HOME });
      env.log('info', `launch at login ${enabled ? 'on' : 'off'}`, { where });
    } catch (error) {
      env.log('warn', 'could not change launch at login', { error: describe(error) });
    }
  }

  updateSettings(patch: SettingsPatch): void {
    try {
      this.server?.app.settings.update(patch);
    } catch (error) {
      this.env.log('error', 'could not save settings', { error: describe(error) });
    }
  }

  /** LAN access needs another socket (0.0.0.0): save the setting, restart the server in place. */
  // eslint-disable-next-line @typescript-eslint/require-await -- async so that a failed save is a rejected promise (the tray fires and forgets it), not a throw into the menu click
  async setLan(on: boolean): Promise<void> {
    const server = this.server;
    if (!server || server.app.settings.get().network.lan === on) return;
    server.app.settings.update({ network: { lan: on } });
  }

  private async restartForLan(): Promise<void> {
    this.status = 'restarting';
    this.renderTray();
    try {
      await this.host.restart();
      const current = this.host.current;
      if (!current) throw new Error('the server host has no server after its restart');
      this.status = 'running';
      this.attachServer(current);
    } catch (error) {
      this.status = 'stopped';
      this.env.log('error', 'restart after the LAN change failed', { error: describe(error) });
      this.showStartError(startErrorKind(error), describe(error));
    }
    this.renderTray();
  }

  trayState(): TrayState {
    const server = this.server;
    const settings = this.settings();
    return {
      status: server ? this.status : this.status === 'restarting' ? 'restarting' : 'stopped',
      local: server ? windowUrlOf(server) : null,
      lanAddresses: server ? lanAddresses(server) : [],
      lan: settings?.network.lan ?? false,
      lastPush: this.lastPush,
      notifications: settings?.desktop.notifications ?? true,
      closeToTray: settings?.desktop.closeToTray ?? true,
      launchAtLogin: settings?.desktop.launchAtLogin ?? false,
    };
  }

  private createTray(): void {
    try {
      this.tray = this.env.newTray(this.env.trayIconPath);
      this.tray.on('click', () => this.showWindow());
    } catch (error) {
      // Some Linux desktops have no tray: then closing the window quits, as usual.
      this.tray = null;
      this.env.log('warn', 'no system tray', { error: describe(error) });
    }
  }

  renderTray(): void {
    if (!this.tray) return;
    const state = this.trayState();
    const now = this.env.now();
    this.tray.setToolTip(trayTooltip(state, now));
    this.tray.setContextMenu(
      this.env.buildMenu(
        trayMenuTemplate(
          state,
          {
            open: () => this.showWindow(),
            quit: () => this.env.app.quit(),
            copy: (text) => this.env.copyText(text),
            setLan: (on) => void this.setLan(on),
            setNotifications: (on) => this.updateSettings({ desktop: { notifications: on } }),
            setCloseToTray: (on) => this.updateSettings({ desktop: { closeToTray: on } }),
            setLaunchAtLogin: (on) => this.updateSettings({ desktop: { launchAtLogin: on } }),
            openHistory: () => this.showWindow('/push'),
          },
          now,
        ),
      ),
    );
  }

  /** Shows (creating if needed) the main window, optionally on a path of the app. */
  showWindow(pathname?: string): void {
    const server = this.server;
    if (!server) {
      if (this.errorWindow && !this.errorWindow.isDestroyed()) revealWindow(this.errorWindow);
      return;
    }
    const base = windowUrlOf(server);
    if (!this.window || this.window.isDestroyed()) {
      this.window = this.createMainWindow(pathname ? base + pathname : base + '/');
      return;
    }
    if (pathname) void this.load(this.window, base + pathname);
    revealWindow(this.window);
  }

  private async load(win: ShellWindow, url: string): Promise<void> {
    try {
      await win.webContents.loadURL(url);
    } catch (error) {
      // A navigation replaced by another one (e.g. a redirect) rejects; nothing to do.
      this.env.log('warn', 'page did not load', { error: describe(error) });
    }
  }

  private createMainWindow(url: string): ShellWindow {
    const { env } = this;
    const stateFile = path.join(env.dataDir, WINDOW_STATE_FILE);
    const placed = placeWindow(readWindowState(stateFile), env.workAreas());
    const options = mainWindowOptions(env.preloadPath, {
      bounds: placed,
      icon: env.platform === 'darwin' ? undefined : env.iconPath,
      additionalArguments: [`${VERSION_ARG_PREFIX}${env.app.getVersion()}`],
    });
    const win = env.newWindow(options);
    if (placed.maximized) win.maximize();
    if (placed.fullScreen) win.setFullScreen(true);
    attachNavigationPolicy(
      win.webContents,
      () => this.origin,
      (external) => env.openExternal(external),
    );
    this.flushWindowState = trackWindowState(win, (state) => writeWindowState(stateFile, state));
    win.on('close', (event: { preventDefault(): void }) => {
      const action = closeAction({
        quitting: this.quit?.isQuitting() ?? false,
        closeToTray: this.settings()?.desktop.closeToTray ?? false,
        hasTray: this.tray !== null,
        platform: env.platform,
      });
      if (action === 'hide') {
        event.preventDefault();
        win.hide();
        if (!this.hintedTray && env.platform !== 'darwin') {
          this.hintedTray = true;
          env.showNotification({ title: 'PennyPost is still running', body: 'The webhook keeps receiving pushes. Open or quit PennyPost from its tray icon.' }, () =>
            this.showWindow(),
          );
        }
      }
    });
    win.on('closed', () => {
      if (this.window === win) this.window = null;
    });
    win.once('ready-to-show', () => win.show());
    void this.load(win, url);
    return win;
  }

  showStartError(kind: StartErrorKind, message: string): void {
    const { env } = this;
    const page = startErrorPage(kind, message, env.dataDir);
    const previous = this.errorWindow;
    const win = env.newWindow(errorWindowOptions(page.title, env.platform === 'darwin' ? undefined : env.iconPath));
    this.errorWindow = win;
    previous?.destroy(); // after the new one exists, or "all windows closed" would quit
    const onAction = (event: { preventDefault(): void }, url: string) => {
      event.preventDefault();
      const action = errorPageAction(url);
      if (action === 'folder') env.showItemInFolder(env.dataDir);
      else if (action === 'quit') env.app.exit(this.exitCode);
      else if (action === 'retry') void this.startServer();
    };
    win.webContents.on('will-navigate', onAction);
    win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
    win.once('ready-to-show', () => win.show());
    win.on('closed', () => {
      if (this.errorWindow === win) {
        this.errorWindow = null;
        if (!this.server) env.app.exit(this.exitCode);
      }
    });
    void this.load(win, errorPageDataUrl(page));
  }

  /** Synchronous cleanup before the server stops (quit sequence step 1). */
  private teardown(): void {
    this.flushWindowState?.();
    for (const off of this.unsubscribers.splice(0)) off();
    this.tray?.destroy();
    this.tray = null;
  }
}
