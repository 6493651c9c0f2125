import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { closeAction, installQuitSequence, quitWhenAllClosed } from './shutdown';

/** Electron's quit protocol: quit() emits before-quit; unless prevented, the app goes away. */
function fakeApp(log: string[]) {
  const app = Object.assign(new EventEmitter(), {
    exited: null as number | null,
    gone: false,
    quit() {
      log.push('app.quit()');
      const event = { prevented: false, preventDefault: () => (event.prevented = true) };
      app.emit('before-quit', event);
      if (!event.prevented) {
        app.gone = true;
        log.push('app gone');
      }
    },
    exit(code = 0) {
      app.exited = code;
      log.push(`app.exit(${code})`);
    },
  });
  return app;
}

function deferred() {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('quit sequence', () => {
  it('runs the shell cleanup, then waits for server.close(), and only then lets the app quit', async () => {
    const log: string[] = [];
    const app = fakeApp(log);
    const closing = deferred();
    const seq = installQuitSequence(app, {
      beforeStop: () => log.push('save window, remove tray'),
      stop: () => {
        log.push('server.close() started');
        return closing.promise.then(() => void log.push('server closed (database closed)'));
      },
      onError: (e) => log.push(`error ${String(e)}`),
      setTimer: () => ({}),
    });
    expect(seq.isQuitting()).toBe(false);
    app.quit();
    expect(seq.isQuitting()).toBe(true);
    expect(app.gone).toBe(false);
    app.quit(); // a second Cmd+Q while closing changes nothing
    await Promise.resolve();
    expect(app.gone).toBe(false);
    closing.resolve();
    await new Promise((r) => setTimeout(r, 0));
    expect(app.gone).toBe(true);
    expect(log).toEqual(['app.quit()', 'save window, remove tray', 'server.close() started', 'app.quit()', 'server closed (database closed)', 'app.quit()', 'app gone']);
  });

  it('still quits when the server fails to close, and reports it', async () => {
    const log: string[] = [];
    const app = fakeApp(log);
    installQuitSequence(app, {
      beforeStop: () => undefined,
      stop: () => Promise.reject(new Error('disk full')),
      onError: (e) => log.push(`error ${(e as Error).message}`),
      setTimer: () => ({}),
    });
    app.quit();
    await new Promise((r) => setTimeout(r, 0));
    expect(log).toContain('error disk full');
    expect(app.gone).toBe(true);
  });

  it('exits with code 1 when the server hangs past the deadline', () => {
    const log: string[] = [];
    const app = fakeApp(log);
    let fire: (() => void) | undefined;
    installQuitSequence(app, { beforeStop: () => undefined, stop: () => new Promise(() => undefined), onError: () => log.push('timeout reported'), setTimer: (fn) => (fire = fn) });
    app.quit();
    fire!();
    expect(app.exited).toBe(1);
    expect(log).toContain('timeout reported');
  });

  it('closing the window hides it to the tray (setting on, tray present) unless quitting', () => {
    expect(closeAction({ quitting: false, closeToTray: true, hasTray: true, platform: 'linux' })).toBe('hide');
    expect(closeAction({ quitting: true, closeToTray: true, hasTray: true, platform: 'linux' })).toBe('close');
    expect(closeAction({ quitting: false, closeToTray: false, hasTray: true, platform: 'win32' })).toBe('close');
    expect(closeAction({ quitting: false, closeToTray: true, hasTray: false, platform: 'linux' })).toBe('close');
  });

  it('after the last window closes: stays for the tray or the macOS dock, quits otherwise', () => {
    expect(quitWhenAllClosed({ closeToTray: true, hasTray: true, platform: 'win32', serverRunning: true })).toBe(false);
    expect(quitWhenAllClosed({ closeToTray: false, hasTray: true, platform: 'win32', serverRunning: true })).toBe(true);
    expect(quitWhenAllClosed({ closeToTray: false, hasTray: true, platform: 'darwin', serverRunning: true })).toBe(false);
    expect(quitWhenAllClosed({ closeToTray: true, hasTray: true, platform: 'linux', serverRunning: false })).toBe(true);
  });
});
