import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it, vi, type Mock } from 'vitest';
import { applicationMenuTemplate, type AppMenuActions } from './app-menu';

function actions(): Record<keyof AppMenuActions, Mock> {
  return { about: vi.fn(), licences: vi.fn(), settings: vi.fn(), showDataFolder: vi.fn(), openDocs: vi.fn(), quit: vi.fn() };
}

function flatten(items: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return items.flatMap((item) => [item, ...(Array.isArray(item.submenu) ? flatten(item.submenu) : [])]);
}

describe('application menu', () => {
  it('macOS: the app menu first (about, settings, services, hide, quit), then File Edit View Window Help', () => {
    const menu = applicationMenuTemplate({ platform: 'darwin', appName: 'PennyPost', dev: false }, actions());
    expect(menu.map((m) => m.label)).toEqual(['PennyPost', '&File', '&Edit', '&View', '&Window', '&Help']);
    const appMenu = flatten(menu[0]?.submenu as MenuItemConstructorOptions[]);
    expect(appMenu.map((i) => i.role ?? i.label).filter(Boolean)).toEqual(['About PennyPost', 'Settings…', 'services', 'hide', 'hideOthers', 'unhide', 'Quit PennyPost']);
    expect(appMenu.find((i) => i.label === 'Quit PennyPost')!.accelerator).toBe('Cmd+Q');
  });

  it('Windows and Linux: settings, data folder and quit in File; about in Help', () => {
    for (const platform of ['win32', 'linux'] as const) {
      const a = actions();
      const menu = applicationMenuTemplate({ platform, appName: 'PennyPost', dev: false }, a);
      expect(menu.map((m) => m.label)).toEqual(['&File', '&Edit', '&View', '&Window', '&Help']);
      const file = menu[0]?.submenu as MenuItemConstructorOptions[];
      const quit = file.find((i) => i.label === 'Quit PennyPost')!;
      expect(quit.accelerator).toBe('Ctrl+Q');
      (quit.click as unknown as () => void)();
      expect(a.quit).toHaveBeenCalledOnce();
      const help = flatten(menu.at(-1)!.submenu as MenuItemConstructorOptions[]);
      (help.find((i) => i.label === 'About PennyPost')!.click as unknown as () => void)();
      (help.find((i) => i.label === 'Third-party licences')!.click as unknown as () => void)();
      expect(a.about).toHaveBeenCalledOnce();
      expect(a.licences).toHaveBeenCalledOnce();
    }
  });

  it('has the usual editing roles (copy and paste work in the forms) and zoom', () => {
    const roles = flatten(applicationMenuTemplate({ platform: 'linux', appName: 'PennyPost', dev: false }, actions())).map((i) => i.role);
    for (const role of ['undo', 'redo', 'cut', 'copy', 'paste', 'selectAll', 'reload', 'resetZoom', 'zoomIn', 'zoomOut', 'togglefullscreen', 'minimize'])
      expect(roles).toContain(role);
  });

  it('offers developer tools only in development builds', () => {
    const roles = (dev: boolean) => flatten(applicationMenuTemplate({ platform: 'linux', appName: 'PennyPost', dev }, actions())).map((i) => i.role);
    expect(roles(false)).not.toContain('toggleDevTools');
    expect(roles(true)).toContain('toggleDevTools');
  });

  it('every item is a separator, a role or a labelled item with an action or submenu', () => {
    for (const platform of ['darwin', 'win32', 'linux'] as const) {
      for (const item of flatten(applicationMenuTemplate({ platform, appName: 'PennyPost', dev: true }, actions()))) {
        expect(item.type === 'separator' || item.role !== undefined || (item.label !== undefined && (item.click !== undefined || item.submenu !== undefined))).toBe(true);
      }
    }
  });
});
