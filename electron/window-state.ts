import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';

/**
 * The main window's size and position, remembered in `<dataDir>/window-state.json` (not in
 * settings.json: it changes on every move and is nobody else's business).
 */
export interface WindowState {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized: boolean;
  fullScreen: boolean;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export const DEFAULT_SIZE = { width: 1280, height: 820 } as const;
export const MIN_SIZE = { width: 1024, height: 700 } as const;
export const WINDOW_STATE_FILE = 'window-state.json';
/** How much of the title bar must stay on some screen for a saved position to be reused. */
const VISIBLE_MIN = { width: 120, height: 20 } as const;

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && Math.abs(v) < 100_000;

/** Reads a saved state; a missing, corrupt or nonsensical file gives null (defaults are used). */
export function readWindowState(file: string): WindowState | null {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
  if (typeof raw !== 'object' || raw === null) return null;
  const r = raw as Record<string, unknown>;
  if (!isInt(r.width) || !isInt(r.height) || r.width < 200 || r.height < 150) return null;
  const state: WindowState = { width: r.width, height: r.height, maximized: r.maximized === true, fullScreen: r.fullScreen === true };
  if (isInt(r.x) && isInt(r.y)) {
    state.x = r.x;
    state.y = r.y;
  }
  return state;
}

/** Saves atomically (temp file, fsync, rename), mode 0600. */
export function writeWindowState(file: string, state: WindowState): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, JSON.stringify(state) + '\n');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

function overlap(a: Rect, b: Rect): { width: number; height: number } {
  return {
    width: Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x),
    height: Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y),
  };
}

/**
 * Where to open the window: the saved bounds when their title bar is on one of today's screens
 * (a monitor may have been unplugged since), shrunk to fit that screen; otherwise the saved (or
 * default) size centred by the OS. `workAreas[0]` is the primary display.
 */
export function placeWindow(saved: WindowState | null, workAreas: readonly Rect[]): WindowState {
  const primary = workAreas[0] ?? { x: 0, y: 0, width: DEFAULT_SIZE.width, height: DEFAULT_SIZE.height };
  const base = saved ?? { width: DEFAULT_SIZE.width, height: DEFAULT_SIZE.height, maximized: false, fullScreen: false };
  const fit = (area: Rect) => ({
    width: Math.max(Math.min(base.width, area.width), Math.min(MIN_SIZE.width, area.width)),
    height: Math.max(Math.min(base.height, area.height), Math.min(MIN_SIZE.height, area.height)),
  });
  if (saved && saved.x !== undefined && saved.y !== undefined) {
    const titleBar: Rect = { x: saved.x, y: saved.y, width: saved.width, height: Math.min(saved.height, 40) };
    const screen = workAreas.find((area) => {
      const o = overlap(titleBar, area);
      return o.width >= Math.min(VISIBLE_MIN.width, saved.width) && o.height >= Math.min(VISIBLE_MIN.height, titleBar.height);
    });
    if (screen) {
      const size = fit(screen);
      // Pull the window inside the screen it belongs to.
      const x = Math.min(Math.max(saved.x, screen.x), screen.x + screen.width - size.width);
      const y = Math.min(Math.max(saved.y, screen.y), screen.y + screen.height - size.height);
      return { x, y, ...size, maximized: saved.maximized, fullScreen: saved.fullScreen };
    }
  }
  return { ...fit(primary), maximized: base.maximized, fullScreen: base.fullScreen };
}

/** The part of BrowserWindow that window-state tracking uses. */
export interface TrackedWindow {
  getNormalBounds(): Rect;
  isMaximized(): boolean;
  isFullScreen(): boolean;
  isDestroyed(): boolean;
  on(event: 'resize' | 'move' | 'maximize' | 'unmaximize' | 'enter-full-screen' | 'leave-full-screen' | 'close', listener: () => void): unknown;
}

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/**
 * Saves the window's state a moment after it stops moving, and at once when it closes (and when
 * `flush()` is called on quit). Returns `flush`.
 */
export function trackWindowState(win: TrackedWindow, save: (state: WindowState) => void, delayMs = 500, timers: Timers = globalThis): () => void {
  let pending: unknown = null;
  let last: WindowState | null = null;
  const capture = () => {
    if (win.isDestroyed()) return;
    const bounds = win.getNormalBounds();
    last = { x: bounds.x, y: bounds.y, width: bounds.width, height: bounds.height, maximized: win.isMaximized(), fullScreen: win.isFullScreen() };
  };
  const flush = () => {
    if (pending !== null) timers.clearTimeout(pending);
    pending = null;
    capture();
    if (last) {
      try {
        save(last);
      } catch {
        // Remembering the window is a nicety; never let it break closing or quitting.
      }
    }
  };
  const schedule = () => {
    capture();
    if (pending !== null) timers.clearTimeout(pending);
    pending = timers.setTimeout(flush, delayMs);
  };
  for (const event of ['resize', 'move', 'maximize', 'unmaximize', 'enter-full-screen', 'leave-full-screen'] as const) win.on(event, schedule);
  win.on('close', flush);
  return flush;
}
