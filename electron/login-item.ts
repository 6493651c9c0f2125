import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The flag PennyPost is started with at login: it starts in the tray, without a window. */
export const HIDDEN_FLAG = '--hidden';

export interface LoginItemApi {
  setLoginItemSettings(settings: { openAtLogin?: boolean; openAsHidden?: boolean; args?: string[]; path?: string }): void;
  getLoginItemSettings(): { openAtLogin: boolean; wasOpenedAtLogin?: boolean; wasOpenedAsHidden?: boolean };
}

/** Whether this launch should stay in the tray (started at login). */
export function startedHidden(argv: readonly string[], login: ReturnType<LoginItemApi['getLoginItemSettings']> | null): boolean {
  return argv.includes(HIDDEN_FLAG) || login?.wasOpenedAsHidden === true || login?.wasOpenedAtLogin === true;
}

/** The XDG autostart entry (Linux: Electron's login-item API covers only macOS and Windows). */
export function autostartDesktopEntry(exec: string): string {
  const quoted = /[\s"'\\$`]/.test(exec) ? `"${exec.replace(/(["\\$`])/g, '\\$1')}"` : exec;
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=PennyPost',
    'Comment=Bookkeeping and push webhook',
    `Exec=${quoted} ${HIDDEN_FLAG}`,
    'Icon=pennypost',
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

export interface LaunchAtLoginTarget {
  platform: NodeJS.Platform;
  app: LoginItemApi;
  /** The executable to start: the AppImage file when run from one ($APPIMAGE), else process.execPath. */
  exec: string;
  /** $XDG_CONFIG_HOME or ~/.config (Linux). */
  configHome?: string;
}

/** Applies the launch-at-login setting; returns where it was written, for the log. */
export function applyLaunchAtLogin(enabled: boolean, target: LaunchAtLoginTarget): string {
  if (target.platform === 'linux') {
    const dir = path.join(target.configHome || process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'autostart');
    const file = path.join(dir, 'pennypost.desktop');
    if (enabled) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(file, autostartDesktopEntry(target.exec), { mode: 0o644 });
    } else if (existsSync(file)) {
      rmSync(file);
    }
    return file;
  }
  target.app.setLoginItemSettings({ openAtLogin: enabled, openAsHidden: enabled, args: enabled ? [HIDDEN_FLAG] : [] });
  return target.platform === 'darwin' ? 'macOS login items' : 'Windows Run registry key';
}
