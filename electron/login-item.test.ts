import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyLaunchAtLogin, autostartDesktopEntry, HIDDEN_FLAG, startedHidden, type LoginItemApi } from './login-item';

function fakeApp() {
  const calls: Parameters<LoginItemApi['setLoginItemSettings']>[0][] = [];
  return { calls, setLoginItemSettings: (s: (typeof calls)[number]) => void calls.push(s), getLoginItemSettings: () => ({ openAtLogin: false }) };
}

describe('launch at login', () => {
  it('macOS and Windows: the login item starts PennyPost hidden in the tray', () => {
    for (const platform of ['darwin', 'win32'] as const) {
      const app = fakeApp();
      applyLaunchAtLogin(true, { platform, app, exec: '/x' });
      applyLaunchAtLogin(false, { platform, app, exec: '/x' });
      expect(app.calls).toEqual([
        { openAtLogin: true, openAsHidden: true, args: [HIDDEN_FLAG] },
        { openAtLogin: false, openAsHidden: false, args: [] },
      ]);
    }
  });

  it('Linux: writes and removes an XDG autostart entry (Electron has no login items there)', () => {
    const configHome = mkdtempSync(path.join(os.tmpdir(), 'pp-autostart-'));
    try {
      const app = fakeApp();
      const file = applyLaunchAtLogin(true, { platform: 'linux', app, exec: '/home/me/Apps/PennyPost 1.0.AppImage', configHome });
      expect(file).toBe(path.join(configHome, 'autostart', 'pennypost.desktop'));
      const entry = readFileSync(file, 'utf8');
      expect(entry).toContain('Exec="/home/me/Apps/PennyPost 1.0.AppImage" --hidden');
      expect(entry).toMatch(/^\[Desktop Entry\]\nType=Application\nName=PennyPost/);
      applyLaunchAtLogin(false, { platform: 'linux', app, exec: '/x', configHome });
      expect(existsSync(file)).toBe(false);
      applyLaunchAtLogin(false, { platform: 'linux', app, exec: '/x', configHome }); // already off: fine
      expect(app.calls).toEqual([]);
    } finally {
      rmSync(configHome, { recursive: true, force: true });
    }
  });

  it('quotes executables with shell-special characters in the desktop entry', () => {
    expect(autostartDesktopEntry('/opt/PennyPost/pennypost')).toContain('Exec=/opt/PennyPost/pennypost --hidden');
    expect(autostartDesktopEntry('/a/$HOME "x"')).toContain('Exec="/a/\\$HOME \\"x\\"" --hidden');
  });

  it('starts hidden when launched at login, shown otherwise', () => {
    expect(startedHidden(['/x', HIDDEN_FLAG], null)).toBe(true);
    expect(startedHidden(['/x'], { openAtLogin: true, wasOpenedAtLogin: true })).toBe(true);
    expect(startedHidden(['/x'], { openAtLogin: true, wasOpenedAtLogin: false })).toBe(false);
    expect(startedHidden(['/x'], null)).toBe(false);
  });
});
