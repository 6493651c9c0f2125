import { describe, expect, it, vi, type Mock } from 'vitest';
import { formatPushTime, trayMenuTemplate, trayTooltip, webhookAddress, type TrayActions, type TrayState } from './tray-model';

const NOW = new Date(2025, 5, 15, 16, 30).getTime();

function state(overrides: Partial<TrayState> = {}): TrayState {
  return {
    status: 'running',
    local: 'http://127.0.0.1:5733',
    lanAddresses: [],
    lan: false,
    lastPush: null,
    notifications: true,
    closeToTray: true,
    launchAtLogin: false,
    ...overrides,
  };
}

function actions(): Record<keyof TrayActions, Mock> {
  return {
    open: vi.fn(),
    quit: vi.fn(),
    copy: vi.fn(),
    setLan: vi.fn(),
    setNotifications: vi.fn(),
    setCloseToTray: vi.fn(),
    setLaunchAtLogin: vi.fn(),
    openHistory: vi.fn(),
  };
}

const byLabel = (items: ReturnType<typeof trayMenuTemplate>, text: string) => items.find((i) => typeof i.label === 'string' && i.label.startsWith(text));
const click = (item: ReturnType<typeof byLabel>) => (item!.click as unknown as () => void)();

describe('tray menu', () => {
  it('shows the listening address, LAN off, no push yet, and open/quit', () => {
    const a = actions();
    const items = trayMenuTemplate(state(), a, NOW);
    const labels = items.filter((i) => i.label).map((i) => i.label);
    expect(labels).toEqual([
      'PennyPost — running',
      'This computer: http://127.0.0.1:5733',
      'Copy webhook address',
      'No pushes yet',
      'Accept pushes from the LAN',
      'Desktop notifications',
      'Keep running when the window is closed',
      'Open at login',
      'Open PennyPost',
      'Quit PennyPost',
    ]);
    expect(byLabel(items, 'Accept pushes')!.checked).toBe(false);
    click(byLabel(items, 'Copy webhook'));
    expect(a.copy).toHaveBeenCalledWith('http://127.0.0.1:5733');
    click(byLabel(items, 'Open PennyPost'));
    click(byLabel(items, 'Quit'));
    expect(a.open).toHaveBeenCalledOnce();
    expect(a.quit).toHaveBeenCalledOnce();
  });

  it('with LAN on lists the LAN addresses and copies the one devices need', () => {
    const a = actions();
    const s = state({ lan: true, lanAddresses: ['http://192.168.1.20:5733', 'http://10.0.0.5:5733'] });
    const items = trayMenuTemplate(s, a, NOW);
    expect(byLabel(items, 'LAN: http://192.168.1.20:5733')).toBeDefined();
    expect(byLabel(items, 'LAN: http://10.0.0.5:5733')).toBeDefined();
    expect(byLabel(items, 'Accept pushes')!.checked).toBe(true);
    expect(webhookAddress(s)).toBe('http://192.168.1.20:5733');
    click(byLabel(items, 'Copy webhook'));
    expect(a.copy).toHaveBeenCalledWith('http://192.168.1.20:5733');
    click(byLabel(items, 'Accept pushes'));
    expect(a.setLan).toHaveBeenCalledWith(false);
  });

  it('quick toggles flip their setting', () => {
    const a = actions();
    const items = trayMenuTemplate(state({ notifications: true, closeToTray: false, launchAtLogin: true }), a, NOW);
    click(byLabel(items, 'Desktop notifications'));
    click(byLabel(items, 'Keep running'));
    click(byLabel(items, 'Open at login'));
    expect(a.setNotifications).toHaveBeenCalledWith(false);
    expect(a.setCloseToTray).toHaveBeenCalledWith(true);
    expect(a.setLaunchAtLogin).toHaveBeenCalledWith(false);
  });

  it('shows the last push with its time and outcome; clicking opens the history', () => {
    const a = actions();
    const at = new Date(2025, 5, 15, 14, 3).getTime();
    const items = trayMenuTemplate(state({ lastPush: { title: 'Door  opened', appName: 'Home', status: 'partial', at } }), a, NOW);
    const item = byLabel(items, 'Last push')!;
    expect(item.label).toBe('Last push 14:03: Door opened (partly delivered)');
    click(item);
    expect(a.openHistory).toHaveBeenCalledOnce();
    const long = trayMenuTemplate(state({ lastPush: { title: 'x'.repeat(300), appName: 'A', status: 'success', at } }), a, NOW);
    expect(String(byLabel(long, 'Last push')!.label).length).toBeLessThanOrEqual(80);
  });

  it('disables copying and LAN switching while the server restarts', () => {
    const items = trayMenuTemplate(state({ status: 'restarting' }), actions(), NOW);
    expect(items[0]?.label).toBe('PennyPost — restarting…');
    expect(byLabel(items, 'Copy webhook')!.enabled).toBe(false);
    expect(byLabel(items, 'Accept pushes')!.enabled).toBe(false);
  });

  it('tooltip: status, webhook address and last push', () => {
    const at = new Date(2025, 5, 15, 9, 5).getTime();
    expect(trayTooltip(state({ lan: true, lanAddresses: ['http://192.168.1.20:5733'], lastPush: { title: 't', appName: 'a', status: 'success', at } }), NOW)).toBe(
      'PennyPost — running\nWebhook: http://192.168.1.20:5733 (LAN)\nLast push: 09:05',
    );
  });

  it('formats push times: today, this year, earlier', () => {
    expect(formatPushTime(new Date(2025, 5, 15, 0, 7).getTime(), NOW)).toBe('00:07');
    expect(formatPushTime(new Date(2025, 2, 5, 14, 3).getTime(), NOW)).toBe('Mar 5, 14:03');
    expect(formatPushTime(new Date(2024, 11, 31, 23, 59).getTime(), NOW)).toBe('2024-12-31 23:59');
  });
});
