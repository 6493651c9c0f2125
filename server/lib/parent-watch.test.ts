import { describe, expect, it } from 'vitest';
import { shouldWatchParent, watchParent } from './parent-watch';

describe('parent watch', () => {
  it('calls back once when the parent process id changes (the launcher died), never before', async () => {
    let parent = 100;
    let calls = 0;
    const watch = watchParent(() => calls++, { intervalMs: 5, parentPid: () => parent });
    await new Promise((r) => setTimeout(r, 30));
    expect(calls).toBe(0);
    parent = 1;
    await new Promise((r) => setTimeout(r, 30));
    parent = 200;
    await new Promise((r) => setTimeout(r, 30));
    expect(calls).toBe(1);
    watch.stop();
  });

  it('watches when started by npm or asked to, not when started directly', () => {
    expect(shouldWatchParent({ npm_lifecycle_event: 'start' })).toBe(true);
    expect(shouldWatchParent({ PENNYPOST_EXIT_WITH_PARENT: '1' })).toBe(true);
    expect(shouldWatchParent({ npm_lifecycle_event: 'serve', PENNYPOST_EXIT_WITH_PARENT: '0' })).toBe(false);
    expect(shouldWatchParent({})).toBe(false);
  });
});
