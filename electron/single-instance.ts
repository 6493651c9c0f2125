/**
 * One PennyPost per user: a second launch (a click on the icon, or login autostart racing a manual
 * start) hands over to the first one, which shows its window, and then exits.
 */
export interface SingleInstanceApp {
  requestSingleInstanceLock(): boolean;
  on(event: 'second-instance', listener: (event: unknown, argv: string[]) => void): unknown;
}

/** Returns false when another instance holds the lock: the caller should quit at once. */
export function claimSingleInstance(app: SingleInstanceApp, reveal: (argv: string[]) => void): boolean {
  if (!app.requestSingleInstanceLock()) return false;
  app.on('second-instance', (_event, argv) => reveal(argv));
  return true;
}

/** The part of BrowserWindow used to bring it to the front. */
export interface RevealableWindow {
  isDestroyed(): boolean;
  isMinimized(): boolean;
  isVisible(): boolean;
  restore(): void;
  show(): void;
  focus(): void;
}

/** Shows a window that is minimized, hidden in the tray or behind others. */
export function revealWindow(win: RevealableWindow): void {
  if (win.isDestroyed()) return;
  if (win.isMinimized()) win.restore();
  if (!win.isVisible()) win.show();
  win.focus();
}
