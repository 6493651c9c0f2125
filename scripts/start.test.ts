import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM script without types
import { electronUnavailableReason } from './start.mjs';

describe('npm start fallback', () => {
  it('explains why the desktop app cannot start (binary missing here, or no display)', () => {
    const reason = electronUnavailableReason({}, 'linux') as string | null;
    // On this machine the Electron binary is never downloaded; elsewhere the display check applies.
    expect(reason).toMatch(/Electron binary is not installed|no display/);
  });
});
