import type { MenuItemConstructorOptions } from 'electron';

/** What the tray shows about the running webhook. */
export interface TrayState {
  status: 'starting' | 'running' | 'restarting' | 'stopped';
  /** Addresses the webhook answers on: this computer first, then LAN addresses when LAN is on. */
  local: string | null;
  lanAddresses: string[];
  lan: boolean;
  lastPush: { title: string; appName: string; status: string; at: number } | null;
  notifications: boolean;
  closeToTray: boolean;
  launchAtLogin: boolean;
}

export interface TrayActions {
  open(): void;
  quit(): void;
  copy(text: string): void;
  setLan(on: boolean): void;
  setNotifications(on: boolean): void;
  setCloseToTray(on: boolean): void;
  setLaunchAtLogin(on: boolean): void;
  openHistory(): void;
}

const STATUS_WORDS: Record<TrayState['status'], string> = {
  starting: 'starting…',
  running: 'running',
  restarting: 'restarting…',
  stopped: 'stopped',
};

const PUSH_WORDS: Record<string, string> = { success: 'delivered', partial: 'partly delivered', failed: 'failed', empty: 'no recipients' };

/** "14:03" today, "Mar 5, 14:03" this year, "2024-03-05 14:03" before (local time). */
export function formatPushTime(at: number, now: number): string {
  const d = new Date(at);
  const n = new Date(now);
  const hm = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  if (d.toDateString() === n.toDateString()) return hm;
  if (d.getFullYear() === n.getFullYear()) return `${d.toLocaleString('en', { month: 'short' })} ${d.getDate()}, ${hm}`;
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')} ${hm}`;
}

function clip(text: string, max: number): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** The webhook address worth copying: a LAN one when LAN is on (that is what devices need). */
export function webhookAddress(state: TrayState): string | null {
  return (state.lan ? state.lanAddresses[0] : undefined) ?? state.local;
}

export function trayTooltip(state: TrayState, now: number): string {
  const lines = [`PennyPost — ${STATUS_WORDS[state.status]}`];
  const address = webhookAddress(state);
  if (address) lines.push(`Webhook: ${address}${state.lan ? ' (LAN)' : ''}`);
  if (state.lastPush) lines.push(`Last push: ${formatPushTime(state.lastPush.at, now)}`);
  return lines.join('\n');
}

/** The tray's context menu (rebuilt on every state change: Linux trays need a fresh menu). */
export function trayMenuTemplate(state: TrayState, actions: TrayActions, now: number): MenuItemConstructorOptions[] {
  const items: MenuItemConstructorOptions[] = [{ label: `PennyPost — ${STATUS_WORDS[state.status]}`, enabled: false }];
  if (state.local) items.push({ label: `This computer: ${state.local}`, enabled: false });
  if (state.lan) {
    if (state.lanAddresses.length === 0) items.push({ label: 'LAN: no network address', enabled: false });
    for (const address of state.lanAddresses.slice(0, 4)) items.push({ label: `LAN: ${address}`, enabled: false });
  }
  const address = webhookAddress(state);
  items.push({ label: 'Copy webhook address', enabled: address !== null && state.status === 'running', click: () => address && actions.copy(address) });
  if (state.lastPush) {
    const push = state.lastPush;
    items.push({
      label: clip(`Last push ${formatPushTime(push.at, now)}: ${push.title || push.appName} (${PUSH_WORDS[push.status] ?? push.status})`, 80),
      click: () => actions.openHistory(),
    });
  } else {
    items.push({ label: 'No pushes yet', enabled: false });
  }
  items.push(
    { type: 'separator' },
    { label: 'Accept pushes from the LAN', type: 'checkbox', checked: state.lan, enabled: state.status === 'running', click: () => actions.setLan(!state.lan) },
    { label: 'Desktop notifications', type: 'checkbox', checked: state.notifications, click: () => actions.setNotifications(!state.notifications) },
    { label: 'Keep running when the window is closed', type: 'checkbox', checked: state.closeToTray, click: () => actions.setCloseToTray(!state.closeToTray) },
    { label: 'Open at login', type: 'checkbox', checked: state.launchAtLogin, click: () => actions.setLaunchAtLogin(!state.launchAtLogin) },
    { type: 'separator' },
    { label: 'Open PennyPost', click: () => actions.open() },
    { label: 'Quit PennyPost', click: () => actions.quit() },
  );
  return items;
}
