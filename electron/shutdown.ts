/**
 * Quitting in order: the shell's own cleanup (window state saved, tray removed), then the
 * server's close() — stop accepting, finish requests in flight, stop the domains, close the
 * database — and only then does Electron really quit. A write the server acknowledged is on disk
 * (fsync), and a write still in flight is finished first: nothing is lost by quitting.
 */
export interface QuitApp {
  on(event: 'before-quit', listener: (event: { preventDefault(): void }) => void): unknown;
  quit(): void;
  exit(code?: number): void;
}

export interface QuitSequence {
  /** True from the first quit request on (the close-to-tray logic lets windows close then). */
  isQuitting(): boolean;
}

export interface QuitSteps {
  /** Synchronous shell cleanup, before the server stops. */
  beforeStop(): void;
  /** The server's close(). */
  stop(): Promise<void>;
  onError(error: unknown): void;
  /** Give up waiting after this long and exit with code 1 (default 20 s). */
  timeoutMs?: number;
  setTimer?(fn: () => void, ms: number): unknown;
}

export function installQuitSequence(app: QuitApp, steps: QuitSteps): QuitSequence {
  let state: 'running' | 'stopping' | 'stopped' = 'running';
  app.on('before-quit', (event) => {
    if (state === 'stopped') return; // the second app.quit(), after the server closed
    event.preventDefault();
    if (state === 'stopping') return;
    state = 'stopping';
    try {
      steps.beforeStop();
    } catch (error) {
      steps.onError(error);
    }
    const timer = (steps.setTimer ?? setTimeout)(() => {
      if (state === 'stopped') return;
      steps.onError(new Error('the server took too long to stop; exiting'));
      app.exit(1);
    }, steps.timeoutMs ?? 20_000) as { unref?(): void } | null | undefined;
    timer?.unref?.();
    steps
      .stop()
      .catch((error: unknown) => steps.onError(error))
      .finally(() => {
        state = 'stopped';
        app.quit();
      });
  });
  return { isQuitting: () => state !== 'running' };
}

/** What closing the main window does. */
export function closeAction(options: { quitting: boolean; closeToTray: boolean; hasTray: boolean; platform: NodeJS.Platform }): 'hide' | 'close' {
  if (options.quitting) return 'close';
  return options.closeToTray && options.hasTray ? 'hide' : 'close';
}

/** After the last window closed: quit, unless PennyPost lives on in the tray or (macOS) the dock. */
export function quitWhenAllClosed(options: { closeToTray: boolean; hasTray: boolean; platform: NodeJS.Platform; serverRunning: boolean }): boolean {
  if (!options.serverRunning) return true;
  if (options.closeToTray && options.hasTray) return false;
  return options.platform !== 'darwin';
}
