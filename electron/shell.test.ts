/**
 * The desktop shell end to end in plain Node: a real PennyPost server in a temp data dir, with
 * Electron's app, windows, tray, notifications and safeStorage replaced by recording fakes.
 */
import { EventEmitter } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { BrowserWindowConstructorOptions, MenuItemConstructorOptions } from 'electron';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../server/lib/logger';
import { startServer, type RunningServer, type ServerOptions } from '../server/server';
import { ACTION_RETRY } from './error-page';
import { IPC_DESKTOP_SIGN_IN, IPC_NOTIFY, IPC_OPEN_EXTERNAL } from './ipc';
import { DesktopShell, type ShellEnv } from './shell';
import { APP_CSP } from './navigation';

/** `list[n]`, or a failure naming what is missing and how many there are. */
function nth<T>(list: readonly T[], n: number, what: string): T {
  const item = list.at(n);
  if (item === undefined) throw new Error(`no ${what} at ${n}: there are ${list.length}`);
  return item;
}

class FakeContents extends EventEmitter {
  loaded: string[] = [];
  openHandler: ((d: { url: string }) => { action: string }) | null = null;
  loadURL(url: string) {
    this.loaded.push(url);
    return Promise.resolve();
  }
  getURL() {
    return this.loaded.at(-1) ?? '';
  }
  setWindowOpenHandler(handler: (d: { url: string }) => { action: 'deny' } | { action: 'allow' }) {
    this.openHandler = handler;
  }
  /** A navigation as Chromium reports it; true when the shell blocked it. */
  navigate(url: string): boolean {
    let prevented = false;
    this.emit('will-navigate', { preventDefault: () => (prevented = true) }, url);
    return prevented;
  }
}

class FakeWindow extends EventEmitter {
  readonly webContents = new FakeContents();
  visible = false;
  destroyed = false;
  minimized = false;
  maximized = false;
  constructor(
    readonly options: BrowserWindowConstructorOptions,
    private readonly world: FakeElectron,
  ) {
    super();
    world.windows.push(this);
    queueMicrotask(() => this.emit('ready-to-show'));
  }
  isDestroyed = () => this.destroyed;
  isMinimized = () => this.minimized;
  isVisible = () => this.visible;
  restore = () => void (this.minimized = false);
  show = () => void (this.visible = true);
  hide = () => void (this.visible = false);
  focus = () => undefined;
  maximize = () => void (this.maximized = true);
  setFullScreen = () => undefined;
  isMaximized = () => this.maximized;
  isFullScreen = () => false;
  getNormalBounds = () => ({ x: 40, y: 30, width: this.options.width ?? 800, height: this.options.height ?? 600 });
  /** The user clicks the close button. */
  close() {
    const event = { prevented: false, preventDefault: () => (event.prevented = true) };
    this.emit('close', event);
    if (!event.prevented) this.destroy();
  }
  destroy() {
    if (this.destroyed) return;
    this.destroyed = true;
    this.visible = false;
    this.emit('closed');
    if (this.world.windows.every((w) => w.destroyed)) this.world.app.emit('window-all-closed');
  }
}

class FakeTray extends EventEmitter {
  tooltip = '';
  menu: MenuItemConstructorOptions[] = [];
  destroyed = false;
  setToolTip = (t: string) => void (this.tooltip = t);
  setContextMenu = (m: unknown) => void (this.menu = m as MenuItemConstructorOptions[]);
  destroy = () => void (this.destroyed = true);
  item(label: string) {
    const item = this.menu.find((i) => typeof i.label === 'string' && i.label.startsWith(label));
    if (!item) throw new Error(`no tray item ${label}: ${this.menu.map((i) => i.label).join(' | ')}`);
    return item;
  }
  click(label: string) {
    (this.item(label).click as unknown as () => void)();
  }
}

class FakeApp extends EventEmitter {
  gone = false;
  exitCode: number | null = null;
  quitCalls = 0;
  loginItems: unknown[] = [];
  readonly isPackaged: boolean;
  constructor(packaged = false) {
    super();
    this.isPackaged = packaged;
  }
  requestSingleInstanceLock = () => true;
  whenReady = () => Promise.resolve();
  getVersion = () => '0.1.0';
  getName = () => 'PennyPost';
  setAboutPanelOptions = () => undefined;
  showAboutPanel = () => undefined;
  setLoginItemSettings = (s: unknown) => void this.loginItems.push(s);
  getLoginItemSettings = () => ({ openAtLogin: false });
  quit() {
    this.quitCalls++;
    const event = { prevented: false, preventDefault: () => (event.prevented = true) };
    this.emit('before-quit', event);
    if (!event.prevented) this.gone = true;
  }
  exit(code = 0) {
    this.exitCode = code;
    this.gone = true;
  }
}

class FakeElectron {
  readonly app: FakeApp;
  windows: FakeWindow[] = [];
  trays: FakeTray[] = [];
  notifications: { title: string; subtitle?: string; body: string; click: () => void }[] = [];
  opened: string[] = [];
  shownInFolder: string[] = [];
  copied: string[] = [];
  appMenu: MenuItemConstructorOptions[] | null = null;
  ipc = new Map<string, (senderUrl: string, payload: unknown) => unknown>();
  headerHook: Parameters<ShellEnv['session']['webRequest']['onHeadersReceived']>[0] | null = null;
  permissionRequest: ((c: unknown, p: string, cb: (g: boolean) => void) => void) | null = null;
  logs: string[] = [];
  constructor(opts: { packaged?: boolean } = {}) {
    this.app = new FakeApp(opts.packaged);
  }
  get mainWindows() {
    return this.windows.filter((w) => w.options.webPreferences?.preload);
  }
  get errorWindows() {
    return this.windows.filter((w) => !w.options.webPreferences?.preload);
  }
  /** The tray (the shell makes one). */
  tray(): FakeTray {
    return nth(this.trays, 0, 'tray');
  }
  mainWindow(n = 0): FakeWindow {
    return nth(this.mainWindows, n, 'main window');
  }
  errorWindow(n = 0): FakeWindow {
    return nth(this.errorWindows, n, 'error window');
  }
  notification(n = 0) {
    return nth(this.notifications, n, 'notification');
  }
}

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

function tempDir(label: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `pp-shell-${label}-`));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

interface Harness {
  fake: FakeElectron;
  shell: DesktopShell;
  dataDir: string;
  starts: ServerOptions[];
}

async function makeShell(
  options: { dataDir?: string; argv?: string[]; env?: NodeJS.ProcessEnv; platform?: NodeJS.Platform; keychain?: boolean; packaged?: boolean } = {},
): Promise<Harness> {
  const fake = new FakeElectron({ packaged: options.packaged });
  const dataDir = options.dataDir ?? tempDir('data');
  const starts: ServerOptions[] = [];
  const env: ShellEnv = {
    app: fake.app,
    platform: options.platform ?? 'linux',
    argv: options.argv ?? ['pennypost'],
    env: { PENNYPOST_HOST: '127.0.0.1', ...options.env },
    dataDir,
    defaultPort: await freePort(),
    preloadPath: '/app/dist/electron/preload.cjs',
    rendererDir: path.join(dataDir, 'no-ui'),
    iconPath: '/app/icon.png',
    trayIconPath: '/app/tray.png',
    startServer: (o) => {
      starts.push(o);
      return startServer({ ...o, logger: createLogger('silent'), settings: { rateLimit: { authPerAddress: 100_000 } } });
    },
    newWindow: (o) => new FakeWindow(o, fake),
    newTray: () => {
      const tray = new FakeTray();
      fake.trays.push(tray);
      return tray;
    },
    showNotification: (note, click) => void fake.notifications.push({ ...note, click }),
    buildMenu: (template) => template,
    setApplicationMenu: (menu) => void (fake.appMenu = menu as MenuItemConstructorOptions[]),
    openExternal: (url) => void fake.opened.push(url),
    showItemInFolder: (p) => void fake.shownInFolder.push(p),
    copyText: (t) => void fake.copied.push(t),
    workAreas: () => [{ x: 0, y: 0, width: 1920, height: 1080 }],
    safeStorage: {
      isEncryptionAvailable: () => options.keychain ?? false,
      getSelectedStorageBackend: () => 'gnome_libsecret',
      encryptString: (plain) => Buffer.from(Buffer.from(plain, 'utf8').map((b) => b ^ 0x5a)),
      decryptString: (sealed) => Buffer.from(sealed.map((b) => b ^ 0x5a)).toString('utf8'),
    },
    session: {
      setPermissionRequestHandler: (h) => void (fake.permissionRequest = h),
      setPermissionCheckHandler: () => undefined,
      webRequest: { onHeadersReceived: (hook) => void (fake.headerHook = hook) },
    },
    handleIpc: (channel, handler) => void fake.ipc.set(channel, handler),
    log: (level, message, details) => void fake.logs.push(`${level} ${message}${details ? ` ${JSON.stringify(details)}` : ''}`),
    now: () => Date.now(),
  };
  const shell = new DesktopShell(env);
  cleanup.push(() => shell.host.stop());
  return { fake, shell, dataDir, starts };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function api(server: RunningServer, action: string, params: unknown, token?: string) {
  const res = await fetch(`${server.url}/api`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ action, params }),
  });
  return (await res.json()) as { code: number; message: string; data: any };
}

const USER = { username: 'deskuser', email: 'desk@example.com', password: 'correct horse battery' };

describe('desktop shell: boot sequence', () => {
  it('starts the server on 127.0.0.1, then tray and menu, then one isolated window on the app origin', async () => {
    const { fake, shell, starts } = await makeShell();
    expect(shell.claim()).toBe(true);
    expect(await shell.boot()).toBe(true);
    const server = shell.server!;
    expect(server.host).toBe('127.0.0.1');
    expect(starts[0]?.port).toBeGreaterThan(0);
    expect((await fetch(`${server.url}/healthz`).then((r) => r.json())) as unknown).toEqual({ status: 'ok' });

    expect(fake.trays).toHaveLength(1);
    expect(fake.tray().item('This computer').label).toBe(`This computer: ${server.url}`);
    expect(fake.appMenu?.map((m) => m.label)).toEqual(['&File', '&Edit', '&View', '&Window', '&Help']);
    expect(fake.mainWindows).toHaveLength(1);
    const win = fake.mainWindow();
    expect(win.options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, preload: '/app/dist/electron/preload.cjs' });
    expect(win.options.webPreferences?.additionalArguments).toEqual(['--pennypost-version=0.1.0']);
    expect(win.webContents.loaded).toEqual([`${server.url}/`]);
    await until(() => win.visible, 'the window to show');

    // Policies are live: other origins leave for the browser, permissions are refused, CSP is added.
    expect(win.webContents.navigate('https://example.com/')).toBe(true);
    expect(win.webContents.navigate(`${server.url}/records`)).toBe(false);
    expect(fake.opened).toEqual(['https://example.com/']);
    let granted: boolean | undefined;
    fake.permissionRequest!(null, 'media', (g) => (granted = g));
    expect(granted).toBe(false);
    let headers: Record<string, string[]> | undefined;
    fake.headerHook!({ url: `${server.url}/x`, responseHeaders: {} }, (r) => (headers = r.responseHeaders));
    expect(headers!['Content-Security-Policy']).toEqual([APP_CSP]);
    expect(fake.ipc.get(IPC_OPEN_EXTERNAL)!(`${server.url}/`, 'https://example.com/docs')).toBe(true);
    expect(fake.ipc.get(IPC_OPEN_EXTERNAL)!('https://evil.example/', 'https://example.com/docs')).toBe(false);
    expect(fake.ipc.get(IPC_NOTIFY)!(`${server.url}/`, { title: 'Saved' })).toBe(true);

    // The owner's window signs in without a password; another origin gets nothing.
    expect(fake.ipc.get(IPC_DESKTOP_SIGN_IN)!('https://evil.example/', undefined)).toBeNull();
    const secret = fake.ipc.get(IPC_DESKTOP_SIGN_IN)!(`${server.url}/`, undefined) as string;
    const signIn = await fetch(`${server.url}/api`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'user.desktopSignIn', params: { secret, username: 'desk_owner' } }),
    }).then((r) => r.json());
    expect(signIn.data).toMatchObject({ username: 'desk_owner', role: 'owner' });
  });

  it('started at login (--hidden): the server and tray run, no window until asked', async () => {
    const { fake, shell } = await makeShell({ argv: ['pennypost', '--hidden'] });
    shell.claim();
    await shell.boot();
    expect(shell.server).not.toBeNull();
    expect(fake.mainWindows).toHaveLength(0);
    fake.tray().click('Open PennyPost');
    expect(fake.mainWindows).toHaveLength(1);
  });

  it('a second launch brings the existing window back (from the tray, minimized or behind)', async () => {
    const { fake, shell } = await makeShell();
    shell.claim();
    await shell.boot();
    const win = fake.mainWindow();
    await until(() => win.visible, 'the window to show');
    win.close(); // close to tray
    expect(win.visible).toBe(false);
    fake.app.emit('second-instance', {}, ['pennypost']);
    expect(win.visible).toBe(true);
    expect(fake.mainWindows).toHaveLength(1);
  });

  it('uses the next free port when 5733 (the default) is taken, and says so', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const taken = (blocker.address() as { port: number }).port;
    const { fake, shell, starts } = await makeShell();
    (shell.host as unknown as { options: { defaultPort: number } }).options.defaultPort = taken;
    shell.claim();
    await shell.boot();
    expect(starts.map((s) => s.port)).toEqual([taken, 0]);
    expect(shell.server!.port).not.toBe(taken);
    expect(fake.logs.some((l) => l.includes(`port ${taken} is in use`))).toBe(true);
  });

  it('a port chosen with PENNYPOST_PORT is not silently replaced', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const taken = (blocker.address() as { port: number }).port;
    const { fake, shell } = await makeShell({ env: { PENNYPOST_PORT: String(taken) } });
    shell.claim();
    expect(await shell.boot()).toBe(false);
    expect(fake.errorWindows).toHaveLength(1);
    expect(decodeURIComponent(fake.errorWindow().webContents.loaded.at(0) ?? '')).toContain('EADDRINUSE');
  });
});

describe('desktop shell: locked data dir', () => {
  it('shows the error window (exit code 2), and "Try again" starts normally once the other PennyPost is gone', async () => {
    const dataDir = tempDir('locked');
    const other = await startServer({ dataDir, port: 0, host: '127.0.0.1', logger: createLogger('silent') });
    const { fake, shell } = await makeShell({ dataDir });
    shell.claim();
    expect(await shell.boot()).toBe(false);
    expect(shell.exitCode).toBe(2);
    expect(fake.mainWindows).toHaveLength(0);
    expect(fake.trays).toHaveLength(0);
    const errorWindow = fake.errorWindow();
    expect(errorWindow.options.webPreferences).toMatchObject({ javascript: false, sandbox: true });
    const html = decodeURIComponent(errorWindow.webContents.loaded.at(0) ?? '');
    expect(html).toContain('PennyPost is already running on this data');
    expect(html).toContain(dataDir);

    // Any other navigation of the error page is blocked.
    expect(errorWindow.webContents.navigate('https://example.com/')).toBe(true);
    expect(fake.opened).toEqual([]);

    // Retry while still locked: a fresh error window; then free the dir and retry.
    errorWindow.webContents.navigate(ACTION_RETRY);
    await until(() => fake.errorWindows.length === 2, 'a second error window');
    await other.close();
    fake.errorWindow(1).webContents.navigate(ACTION_RETRY);
    await until(() => fake.mainWindows.length === 1, 'the main window');
    expect(shell.server).not.toBeNull();
    expect(fake.errorWindows.every((w) => w.destroyed)).toBe(true);
    expect(fake.app.exitCode).toBeNull();
  });

  it('closing the error window exits with code 2', async () => {
    const dataDir = tempDir('locked2');
    const other = await startServer({ dataDir, port: 0, host: '127.0.0.1', logger: createLogger('silent') });
    cleanup.push(() => other.close());
    const { fake, shell } = await makeShell({ dataDir });
    shell.claim();
    await shell.boot();
    fake.errorWindow().close();
    expect(fake.app.exitCode).toBe(2);
  });
});

describe('desktop shell: tray, notifications, settings', () => {
  it('a push to the desktop channel shows a native notification; clicking opens its message page; the tray shows it as the last push', async () => {
    const { fake, shell } = await makeShell();
    shell.claim();
    await shell.boot();
    const server = shell.server!;
    const user = await api(server, 'user.register', USER);
    const channel = await api(server, 'push.createChannel', { name: 'This computer', type: 'desktop' }, user.data.token);
    const app = await api(server, 'push.createApp', { name: 'Home', channelId: channel.data.id }, user.data.token);
    const sent = await fetch(`${server.url}/send/${app.data.appKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Door opened', desp: '**Front** door at 14:03' }),
    });
    expect(sent.status).toBe(200);
    await until(() => fake.notifications.length === 1, 'the notification');
    expect(fake.notification()).toMatchObject({ title: 'Door opened', subtitle: 'Home', body: 'Front door at 14:03' });

    const win = fake.mainWindow();
    win.close(); // in the tray
    fake.notification().click();
    expect(win.visible).toBe(true);
    const page = win.webContents.loaded.at(-1)!;
    expect(page).toMatch(new RegExp(`^${server.url}/m/[A-Za-z0-9_.-]+$`));
    const res = await fetch(page);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Door opened');

    await until(() => fake.tray().menu.some((i) => String(i.label).startsWith('Last push')), 'the last push in the tray');
    expect(String(fake.tray().item('Last push').label)).toMatch(/^Last push \d\d:\d\d: Door opened \(delivered\)$/);
  });

  it('turning notifications off in the tray silences them (and is saved in settings.json)', async () => {
    const { fake, shell, dataDir } = await makeShell();
    shell.claim();
    await shell.boot();
    fake.tray().click('Desktop notifications');
    expect(JSON.parse(readFileSync(path.join(dataDir, 'settings.json'), 'utf8')).desktop.notifications).toBe(false);
    expect(fake.tray().item('Desktop notifications').checked).toBe(false);
    shell.notify({ id: 'x', userId: 'u', appId: 'a', appName: 'A', title: 'T', desp: '', url: '/m/x', createdAt: 0 });
    expect(fake.notifications).toHaveLength(0);
  });

  it('closing the window keeps the webhook running in the tray; with the setting off it quits', async () => {
    const { fake, shell } = await makeShell();
    shell.claim();
    await shell.boot();
    const win = fake.mainWindow();
    win.close();
    expect(win.destroyed).toBe(false);
    expect(fake.notifications.map((n) => n.title)).toEqual(['PennyPost is still running']);
    expect((await fetch(`${shell.server!.url}/healthz`)).status).toBe(200);

    fake.tray().click('Keep running when the window is closed');
    shell.showWindow();
    win.close();
    expect(win.destroyed).toBe(true);
    await until(() => fake.app.gone, 'the app to quit');
    expect(shell.server).toBeNull();
  });

  it('the LAN toggle saves the setting and restarts the server on the same port; the window reloads', async () => {
    const { fake, shell, dataDir } = await makeShell();
    shell.claim();
    await shell.boot();
    const before = shell.server!;
    fake.tray().click('Accept pushes from the LAN');
    await until(() => shell.server !== null && shell.server !== before && fake.tray().item('PennyPost').label === 'PennyPost — running', 'the restart');
    const after = shell.server!;
    expect(after.port).toBe(before.port);
    expect(after.app.settings.get().network.lan).toBe(true);
    expect(JSON.parse(readFileSync(path.join(dataDir, 'settings.json'), 'utf8')).network.lan).toBe(true);
    expect(fake.tray().item('Accept pushes').checked).toBe(true);
    expect(fake.mainWindow().webContents.loaded.at(-1)).toBe(`${after.url}/`);
    expect((await fetch(`${after.url}/healthz`)).status).toBe(200);
  });

  it('copies the webhook address from the tray', async () => {
    const { fake, shell } = await makeShell();
    shell.claim();
    await shell.boot();
    fake.tray().click('Copy webhook address');
    expect(fake.copied).toEqual([shell.server!.url]);
  });

  it('launch at login: applied by the installed app, skipped with a note in development', async () => {
    const configHome = tempDir('xdg');
    const dev = await makeShell({ env: { XDG_CONFIG_HOME: configHome } });
    dev.shell.claim();
    await dev.shell.boot();
    dev.fake.tray().click('Open at login');
    expect(existsSync(path.join(configHome, 'autostart', 'pennypost.desktop'))).toBe(false);
    expect(dev.fake.logs.some((l) => l.includes('only in the installed app'))).toBe(true);
    await dev.shell.host.stop();

    const installed = await makeShell({ dataDir: dev.dataDir, packaged: true, env: { XDG_CONFIG_HOME: configHome, APPIMAGE: '/home/me/PennyPost.AppImage' } });
    installed.shell.claim();
    await installed.shell.boot();
    // The setting (on) was saved by the dev run; the installed app applies it at start.
    expect(readFileSync(path.join(configHome, 'autostart', 'pennypost.desktop'), 'utf8')).toContain('Exec=/home/me/PennyPost.AppImage --hidden');
    installed.fake.tray().click('Open at login');
    expect(existsSync(path.join(configHome, 'autostart', 'pennypost.desktop'))).toBe(false);
    await installed.shell.host.stop();

    const mac = await makeShell({ platform: 'darwin', packaged: true });
    mac.shell.claim();
    await mac.shell.boot();
    mac.fake.tray().click('Open at login');
    expect(mac.fake.app.loginItems.at(-1)).toEqual({ openAtLogin: true, openAsHidden: true, args: ['--hidden'] });
  });
});

describe('desktop shell: shutdown', () => {
  it('quit: window state saved, tray removed, server closed before the app goes; a write in flight is kept', async () => {
    const { fake, shell, dataDir } = await makeShell();
    shell.claim();
    await shell.boot();
    const server = shell.server!;
    const order: string[] = [];
    const close = server.close.bind(server);
    (server as { close: () => Promise<void> }).close = async () => {
      order.push(`server.close() (tray destroyed: ${fake.tray().destroyed})`);
      await close();
      order.push('server closed');
    };
    fake.app.on('before-quit', () => order.push(fake.app.gone ? 'late' : 'before-quit'));

    const arrived = new Promise<void>((resolve) => server.http.once('request', () => resolve()));
    const registering = api(server, 'user.register', USER);
    await arrived; // the request is in flight (being handled) when the user quits
    fake.app.quit();
    expect(fake.app.gone).toBe(false);
    const answer = await registering;
    await until(() => fake.app.gone, 'the app to quit');
    expect(answer.code).toBe(200);
    // The second before-quit is the shell's own app.quit() once the server (database) is closed.
    expect(order).toEqual(['before-quit', 'server.close() (tray destroyed: true)', 'server closed', 'before-quit']);
    expect(JSON.parse(readFileSync(path.join(dataDir, 'window-state.json'), 'utf8'))).toMatchObject({ width: 1280, height: 820 });

    // The database was closed cleanly: another PennyPost opens it at once and finds the account.
    const again = await startServer({ dataDir, port: 0, host: '127.0.0.1', logger: createLogger('silent') });
    try {
      expect((await api(again, 'user.login', { email: USER.email, password: USER.password })).code).toBe(200);
    } finally {
      await again.close();
    }
  });

  it('reopens the window where it was left', async () => {
    const { fake, shell, dataDir } = await makeShell();
    shell.claim();
    await shell.boot();
    fake.app.quit();
    await until(() => fake.app.gone, 'the app to quit');
    const second = await makeShell({ dataDir });
    second.shell.claim();
    await second.shell.boot();
    expect(second.fake.mainWindow().options).toMatchObject({ x: 40, y: 30, width: 1280, height: 820 });
  });
});

describe('desktop shell: keys', () => {
  it('with an OS keychain the data dir keys are wrapped; without one they stay 0600 files', async () => {
    const withKeychain = await makeShell({ keychain: true });
    withKeychain.shell.claim();
    await withKeychain.shell.boot();
    expect(withKeychain.shell.server!.app.secrets.protection()).toEqual({ mode: 'os-keychain', protector: 'electron-safeStorage' });
    expect(readFileSync(path.join(withKeychain.dataDir, 'secrets', 'jwt.key'), 'utf8')).toMatch(/^protected:electron-safeStorage:/);
    await withKeychain.shell.host.stop(); // RxDB's open-source build: one server's collections at a time

    const without = await makeShell({ keychain: false });
    without.shell.claim();
    await without.shell.boot();
    expect(without.shell.server!.app.secrets.protection()).toEqual({ mode: 'file' });
    expect(readFileSync(path.join(without.dataDir, 'secrets', 'jwt.key'), 'utf8')).not.toMatch(/^protected:/);
  });
});
