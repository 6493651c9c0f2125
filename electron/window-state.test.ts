import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { placeWindow, readWindowState, trackWindowState, writeWindowState, type Rect, type WindowState } from './window-state';

const dirs: string[] = [];
const tmp = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pp-winstate-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const laptop: Rect = { x: 0, y: 0, width: 1920, height: 1050 };
const rightMonitor: Rect = { x: 1920, y: 0, width: 2560, height: 1400 };

describe('window state file', () => {
  it('round-trips through <dataDir>/window-state.json (0600, atomic)', () => {
    const file = path.join(tmp(), 'window-state.json');
    const state: WindowState = { x: 100, y: 80, width: 1300, height: 900, maximized: true, fullScreen: false };
    writeWindowState(file, state);
    expect(readWindowState(file)).toEqual(state);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('ignores a missing, corrupt or absurd file', () => {
    const dir = tmp();
    expect(readWindowState(path.join(dir, 'none.json'))).toBeNull();
    const file = path.join(dir, 'w.json');
    for (const text of ['{', '[]', 'null', '{"width":"big","height":800}', '{"width":50,"height":40}', '{"width":1e9,"height":800}']) {
      writeFileSync(file, text);
      expect(readWindowState(file), text).toBeNull();
    }
    writeFileSync(file, '{"width":1200,"height":800,"x":"left"}');
    expect(readWindowState(file)).toEqual({ width: 1200, height: 800, maximized: false, fullScreen: false });
  });
});

describe('placing the window', () => {
  it('opens at the default size, centred by the OS, the first time', () => {
    expect(placeWindow(null, [laptop])).toEqual({ width: 1280, height: 820, maximized: false, fullScreen: false });
  });

  it('reopens where it was, on whichever screen that was', () => {
    const saved = { x: 2100, y: 100, width: 1600, height: 1000, maximized: false, fullScreen: false };
    expect(placeWindow(saved, [laptop, rightMonitor])).toEqual(saved);
  });

  it('falls back to the primary screen when the monitor it was on is gone', () => {
    const saved = { x: 2100, y: 100, width: 1600, height: 1000, maximized: true, fullScreen: false };
    expect(placeWindow(saved, [laptop])).toEqual({ width: 1600, height: 1000, maximized: true, fullScreen: false });
  });

  it('shrinks a window bigger than its screen and pulls it fully inside', () => {
    const placed = placeWindow({ x: 1500, y: -5, width: 2400, height: 1300, maximized: false, fullScreen: false }, [laptop]);
    expect(placed).toEqual({ x: 0, y: 0, width: 1920, height: 1050, maximized: false, fullScreen: false });
  });

  it('never goes below the minimum size on a normal screen, nor above a tiny one', () => {
    expect(placeWindow({ width: 300, height: 200, maximized: false, fullScreen: false }, [laptop])).toMatchObject({ width: 1024, height: 700 });
    expect(placeWindow({ width: 1280, height: 820, maximized: false, fullScreen: false }, [{ x: 0, y: 0, width: 800, height: 600 }])).toMatchObject({ width: 800, height: 600 });
  });
});

describe('tracking the window', () => {
  function fakeWindow() {
    const emitter = new EventEmitter();
    let bounds: Rect = { x: 10, y: 10, width: 1280, height: 820 };
    let maximized = false;
    return {
      emitter,
      set(next: Partial<Rect>, max = false) {
        bounds = { ...bounds, ...next };
        maximized = max;
      },
      getNormalBounds: () => bounds,
      isMaximized: () => maximized,
      isFullScreen: () => false,
      isDestroyed: () => false,
      on: (event: string, listener: () => void) => emitter.on(event, listener),
    };
  }
  function manualTimers() {
    const pending = new Map<number, () => void>();
    let next = 1;
    return {
      pending,
      setTimeout: (fn: () => void) => {
        pending.set(next, fn);
        return next++;
      },
      clearTimeout: (handle: unknown) => void pending.delete(handle as number),
      fire() {
        for (const [id, fn] of [...pending]) {
          pending.delete(id);
          fn();
        }
      },
    };
  }

  it('saves once after moving stops, and at once on close', () => {
    const win = fakeWindow();
    const timers = manualTimers();
    const saved: WindowState[] = [];
    trackWindowState(win, (s) => saved.push(s), 500, timers);
    win.set({ x: 50 });
    win.emitter.emit('move');
    win.set({ x: 90 });
    win.emitter.emit('move');
    expect(saved).toEqual([]);
    expect(timers.pending.size).toBe(1);
    timers.fire();
    expect(saved).toEqual([{ x: 90, y: 10, width: 1280, height: 820, maximized: false, fullScreen: false }]);
    win.set({ width: 1400 }, true);
    win.emitter.emit('maximize');
    win.emitter.emit('close');
    expect(saved.at(-1)).toEqual({ x: 90, y: 10, width: 1400, height: 820, maximized: true, fullScreen: false });
    expect(timers.pending.size).toBe(0);
  });

  it('keeps closing even when the disk refuses the save', () => {
    const win = fakeWindow();
    const flush = trackWindowState(
      win,
      () => {
        throw new Error('EROFS');
      },
      500,
      manualTimers(),
    );
    expect(() => flush()).not.toThrow();
    expect(() => win.emitter.emit('close')).not.toThrow();
  });
});
