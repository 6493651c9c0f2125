// The sandboxed preload: the only bridge between the page and the main process. It exposes
// `window.pennypost` with the versions and two checked requests; nothing else of Node or Electron.
import { contextBridge, ipcRenderer } from 'electron';
import { IPC_DESKTOP_SIGN_IN, IPC_NOTIFY, IPC_OPEN_EXTERNAL, versionFromArgv } from './ipc';

/** The page may pass anything: it goes to the main process as text, which checks it (electron/ipc.ts). */
const asText = (value: unknown): string => String(value);

contextBridge.exposeInMainWorld('pennypost', {
  desktop: true,
  version: versionFromArgv(process.argv),
  versions: { electron: process.versions.electron, chrome: process.versions.chrome, node: process.versions.node },
  platform: process.platform,
  /** Opens an http(s)/mailto URL in the system browser; resolves false when refused. */
  openExternal: (url: unknown): Promise<boolean> => ipcRenderer.invoke(IPC_OPEN_EXTERNAL, asText(url)),
  /** A native notification (title ≤ 256, body ≤ 4096 characters); resolves false when refused. */
  /** A one-time secret for user.desktopSignIn (the owner signs in without a password); null when refused. */
  desktopSignInSecret: (): Promise<string | null> => ipcRenderer.invoke(IPC_DESKTOP_SIGN_IN),
  notify: (title: unknown, body?: unknown): Promise<boolean> => ipcRenderer.invoke(IPC_NOTIFY, { title: asText(title), body: body === undefined ? undefined : asText(body) }),
});
