import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM script without types
import { electronUnavailableReason, headlessNotice } from './start.mjs';

describe('npm start fallback', () => {
  it('explains why the desktop app cannot start (Electron missing here, or no display)', () => {
    const reason = electronUnavailableReason({}, 'linux') as string | null;
    // On this machine Electron is never downloaded; elsewhere the display check applies.
    expect(reason).toMatch(/Electron is not installed|Electron binary is not installed|no display/);
  });

  it('says so in exactly one line', () => {
    const notice = headlessNotice('there is no display (DISPLAY and WAYLAND_DISPLAY are unset)') as string;
    expect(notice.trimEnd().split('\n')).toHaveLength(1);
    expect(notice).toContain('Running the headless server instead');
  });
});
