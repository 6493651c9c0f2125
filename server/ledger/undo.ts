import { randomBytes } from 'node:crypto';
import type { RecordDoc } from './schema';

/** How long a change can be undone (the UI's toast offers it for 15 s). */
export const UNDO_TTL_MS = 60_000;
/** Undo tokens kept per user; the oldest is forgotten first. */
export const UNDO_PER_USER = 10;

/** One record of a change: as it was before and as the change left it (null: deleted). */
export interface UndoStep {
  before: RecordDoc;
  after: RecordDoc | null;
}

interface Entry {
  userId: string;
  expiresAt: number;
  steps: UndoStep[];
}

/**
 * The undo tokens of recent deletes and bulk edits, in memory: per user at most UNDO_PER_USER,
 * each for UNDO_TTL_MS, each usable once. A restart forgets them (undo is a convenience of the
 * moment, not history), and memory stays bounded by users × 10 × the records of one bulk change.
 */
export class UndoLog {
  private readonly byUser = new Map<string, Map<string, Entry>>();

  constructor(private readonly now: () => number) {}

  private sweep(userId: string): Map<string, Entry> | undefined {
    const tokens = this.byUser.get(userId);
    if (!tokens) return undefined;
    const now = this.now();
    for (const [token, entry] of tokens) if (entry.expiresAt <= now) tokens.delete(token);
    if (tokens.size === 0) {
      this.byUser.delete(userId);
      return undefined;
    }
    return tokens;
  }

  /** Keeps a change; answers its token and until when it can be undone. */
  remember(userId: string, steps: UndoStep[]): { undoToken: string; undoUntil: number } {
    const tokens = this.sweep(userId) ?? new Map<string, Entry>();
    this.byUser.set(userId, tokens);
    while (tokens.size >= UNDO_PER_USER) tokens.delete(tokens.keys().next().value as string);
    const undoToken = randomBytes(16).toString('base64url');
    const expiresAt = this.now() + UNDO_TTL_MS;
    tokens.set(undoToken, { userId, expiresAt, steps });
    return { undoToken, undoUntil: expiresAt };
  }

  /** The steps of a live token of this user (not consumed), or undefined. */
  peek(userId: string, token: string): UndoStep[] | undefined {
    return this.sweep(userId)?.get(token)?.steps;
  }

  /** Forgets a token (after it was used). */
  forget(userId: string, token: string): void {
    this.byUser.get(userId)?.delete(token);
  }

  /** Forgets every token of a user (account deleted). */
  forgetUser(userId: string): void {
    this.byUser.delete(userId);
  }

  /** Tokens held in all (for tests and diagnostics). */
  size(): number {
    let n = 0;
    for (const tokens of this.byUser.values()) n += tokens.size;
    return n;
  }
}
