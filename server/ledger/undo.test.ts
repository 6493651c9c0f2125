import { describe, expect, it } from 'vitest';
import type { RecordDoc } from './schema';
import { UNDO_PER_USER, UNDO_TTL_MS, UndoLog } from './undo';

const doc = { id: 'r1' } as RecordDoc;

describe('UndoLog', () => {
  it('keeps at most 10 tokens per user, each for 60 s, per user', () => {
    let now = 1_000_000;
    const log = new UndoLog(() => now);
    const tokens = Array.from({ length: UNDO_PER_USER + 2 }, () => log.remember('u1', [{ before: doc, after: null }]).undoToken);
    const [oldest, second, third] = tokens;
    const newest = tokens.at(-1);
    if (!oldest || !second || !third || !newest) throw new Error('a token is missing');
    expect(log.size()).toBe(UNDO_PER_USER);
    expect(log.peek('u1', oldest)).toBeUndefined();
    expect(log.peek('u1', second)).toBeUndefined();
    expect(log.peek('u1', third)).toHaveLength(1);
    expect(log.peek('u2', third)).toBeUndefined();
    now += UNDO_TTL_MS - 1;
    expect(log.peek('u1', newest)).toHaveLength(1);
    now += 1;
    expect(log.peek('u1', newest)).toBeUndefined();
    expect(log.size()).toBe(0);
  });

  it('forgets a used token and a deleted user', () => {
    const log = new UndoLog(() => 0);
    const { undoToken, undoUntil } = log.remember('u1', [{ before: doc, after: null }]);
    expect(undoUntil).toBe(UNDO_TTL_MS);
    log.forget('u1', undoToken);
    expect(log.peek('u1', undoToken)).toBeUndefined();
    log.remember('u1', [{ before: doc, after: null }]);
    log.forgetUser('u1');
    expect(log.size()).toBe(0);
  });
});
