import { describe, expect, it } from 'vitest';
import { desktopLaunchOptions, resolveLaunchOptions, UsageError } from './launch-options';
import { defaultDataDir } from './paths';

describe('desktop app flags (npm start -- …)', () => {
  it('takes --data-dir, --port and --host like the headless server, flags over environment', () => {
    const options = desktopLaunchOptions(['/usr/bin/electron', '/app', '--data-dir', '/tmp/pp', '--port=0', '--host', '127.0.0.1'], { PENNYPOST_PORT: '5733', HOME: '/home/me' });
    expect(options).toEqual({ dataDir: '/tmp/pp', port: 0, host: '127.0.0.1' });
  });

  it('leaves Electron, Chromium and its own flags alone, and ignores a flag without a value', () => {
    const options = desktopLaunchOptions(['electron', '.', '--hidden', '--no-sandbox', '--enable-logging', '--port', '--data-dir'], { PENNYPOST_PORT: '6000' });
    expect(options.port).toBe(6000);
    expect(options.dataDir).toBe(defaultDataDir());
    // A flag without a value does not swallow the next flag.
    expect(desktopLaunchOptions(['electron', '--port', '--data-dir', '/x', '--host='], { PENNYPOST_HOST: '::1' })).toEqual({ dataDir: '/x', port: undefined, host: '::1' });
  });

  it('never fails: values that are no use count as not given', () => {
    expect(desktopLaunchOptions(['electron', '-psn_0_4711', '--port', 'eighty', '--', 'x'], { PENNYPOST_PORT: '6000' }).port).toBeUndefined();
    expect(desktopLaunchOptions(['electron'], { PENNYPOST_PORT: '70000', PENNYPOST_HOST: ' ', PENNYPOST_DATA_DIR: '/env' })).toEqual({
      dataDir: '/env',
      port: undefined,
      host: undefined,
    });
  });
});

describe('launch options, strict (the headless CLI)', () => {
  it('refuses a port that is not one and an empty host, naming where it came from', () => {
    expect(() => resolveLaunchOptions({ port: 'eighty' }, {}, 'strict')).toThrow(new UsageError('--port must be a port number 0–65535 (got "eighty")'));
    expect(() => resolveLaunchOptions({}, { PENNYPOST_PORT: '65536' }, 'strict')).toThrow(/^PENNYPOST_PORT must be a port number/);
    expect(() => resolveLaunchOptions({ host: ' ' }, {}, 'strict')).toThrow(UsageError);
    expect(resolveLaunchOptions({ 'data-dir': '' }, { PENNYPOST_DATA_DIR: '/env' }, 'strict').dataDir).toBe('/env');
  });
});
