import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { claimSingleInstance, revealWindow } from './single-instance';

/** Two "processes" sharing one lock, as Electron's requestSingleInstanceLock does per user/data dir. */
function fakeLock() {
  let holder: (EventEmitter & { requestSingleInstanceLock(): boolean }) | null = null;
  const make = () => {
    const app = Object.assign(new EventEmitter(), {
      requestSingleInstanceLock(): boolean {
        if (holder && holder !== app) {
          holder.emit('second-instance', {}, ['pennypost', '--from-second']);
          return false;
        }
        holder = app;
        return true;
      },
    });
    return app;
  };
  return { make };
}

function fakeWindow(state: { minimized?: boolean; visible?: boolean; destroyed?: boolean }) {
  const calls: string[] = [];
  return {
    calls,
    isDestroyed: () => state.destroyed ?? false,
    isMinimized: () => state.minimized ?? false,
    isVisible: () => state.visible ?? true,
    restore: () => void calls.push('restore'),
    show: () => void calls.push('show'),
    focus: () => void calls.push('focus'),
  };
}

describe('single instance', () => {
  it('the first launch keeps the lock; a second launch is told to quit and the first one shows itself', () => {
    const lock = fakeLock();
    const reveal = vi.fn();
    expect(claimSingleInstance(lock.make(), reveal)).toBe(true);
    const secondReveal = vi.fn();
    expect(claimSingleInstance(lock.make(), secondReveal)).toBe(false);
    expect(reveal).toHaveBeenCalledWith(['pennypost', '--from-second']);
    expect(secondReveal).not.toHaveBeenCalled();
  });

  it('brings back a window that is minimized, hidden in the tray, or behind others', () => {
    const minimized = fakeWindow({ minimized: true });
    revealWindow(minimized);
    expect(minimized.calls).toEqual(['restore', 'focus']);
    const hidden = fakeWindow({ visible: false });
    revealWindow(hidden);
    expect(hidden.calls).toEqual(['show', 'focus']);
    const behind = fakeWindow({});
    revealWindow(behind);
    expect(behind.calls).toEqual(['focus']);
    const gone = fakeWindow({ destroyed: true });
    revealWindow(gone);
    expect(gone.calls).toEqual([]);
  });
});
