import type { AppContext } from '../app-context';

/** Why a snapshot is taken before an action writes (shown in the snapshot list). */
export type SnapshotReason = 'import' | 'restore';

/**
 * What an action's writes need around them. Declared on the action (`writes`), shown in
 * docs/api.md, and applied by the action pipeline (call-action.ts) — written once, visible where
 * the action is declared, the way a method table shows `mutator(undoable(…))`.
 */
export interface WritePolicy<P = never> {
  /**
   * A snapshot of the data is pinned before the handler runs (server/backup: taken, or reused
   * when one was taken for the same reason in the last two minutes), so the write can be undone
   * by restoring it. A server without a snapshot taker (no backup domain) takes none.
   */
  snapshotFirst?: SnapshotReason;
  /** Limits `snapshotFirst` to the calls that write (`(p) => !p.dryRun`). */
  when?(params: P): boolean;
  /**
   * The answer carries an `undoToken` that `accounting.undo` takes back for a while. The handler
   * makes it; declaring it puts it on the action's page of docs/api.md.
   */
  undoable?: boolean;
}

/** Takes the snapshots `snapshotFirst` asks for: the backup domain provides one when it starts. */
export interface SnapshotTaker {
  snapshotBefore(reason: SnapshotReason): Promise<unknown>;
}

const takers = new WeakMap<AppContext, SnapshotTaker>();

/** The backup domain registers itself (again after a snapshot restore restarts it). */
export function provideSnapshots(app: AppContext, taker: SnapshotTaker): void {
  takers.set(app, taker);
}

/** Runs before the handler of an action with a write policy: the snapshot it asks for, if any. */
export async function beforeWrites<P>(app: AppContext, policy: WritePolicy<P> | undefined, params: P): Promise<void> {
  if (!policy?.snapshotFirst || (policy.when && !policy.when(params))) return;
  await takers.get(app)?.snapshotBefore(policy.snapshotFirst);
}

/** The policy in words, for docs/api.md. */
export function describeWritePolicy(policy: WritePolicy | undefined): string | null {
  if (!policy) return null;
  const parts: string[] = [];
  if (policy.snapshotFirst) parts.push(`snapshot first (reason \`${policy.snapshotFirst}\`${policy.when ? ', when it writes' : ''}): backup.restoreSnapshot takes the change back`);
  if (policy.undoable) parts.push("undoable: the answer's `undoToken` goes to accounting.undo");
  return parts.length > 0 ? parts.join('; ') : null;
}
