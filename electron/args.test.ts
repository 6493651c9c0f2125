import { describe, expect, it } from 'vitest';
import { desktopEnv } from './args';

describe('desktop app flags (npm start -- …)', () => {
  it('takes --data-dir, --port and --host like the headless server, flags over environment', () => {
    const env = desktopEnv(['/usr/bin/electron', '/app', '--data-dir', '/tmp/pp', '--port=0', '--host', '127.0.0.1'], { PENNYPOST_PORT: '5733', HOME: '/home/me' });
    expect(env).toMatchObject({ PENNYPOST_DATA_DIR: '/tmp/pp', PENNYPOST_PORT: '0', PENNYPOST_HOST: '127.0.0.1', HOME: '/home/me' });
  });

  it('leaves Electron, Chromium and its own flags alone, and ignores a flag without a value', () => {
    const env = desktopEnv(['electron', '.', '--hidden', '--no-sandbox', '--enable-logging', '--port', '--data-dir'], { PENNYPOST_PORT: '6000' });
    expect(env.PENNYPOST_PORT).toBe('6000');
    expect(env.PENNYPOST_DATA_DIR).toBeUndefined();
  });
});
