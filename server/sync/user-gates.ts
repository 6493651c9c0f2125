import type { RxCollection } from 'rxdb';
import type { Subscription } from 'rxjs';
import type { AppContext } from '../app-context';
import { SyncGate } from './gate';
import type { SyncedDoc } from '../arrival-checks';
import { syncedCollections, type SyncedCollection } from './synced-collections';

/**
 * The gates of one account's sync: one per replicated collection, re-checked when the account's
 * documents change in any synced collection (synced or written here).
 */
export class UserGates {
  private readonly gates = new Map<SyncedCollection, SyncGate>();
  private readonly subscriptions: Subscription[] = [];
  private changed = new Set<SyncedCollection>();
  private timer: NodeJS.Timeout | null = null;
  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly app: AppContext,
    readonly userId: string,
    /** Some waiting documents of `collection` passed: its replication should pull again. */
    private readonly onReleased: (collection: SyncedCollection) => void,
  ) {}

  get(name: SyncedCollection): SyncGate | undefined {
    return this.gates.get(name);
  }

  /** Creates the gates of the replicated collections, reads what waited before, starts watching. */
  async open(names: readonly SyncedCollection[]): Promise<void> {
    for (const name of names) {
      const rx = this.app.db.rx.collections[name] as RxCollection | undefined;
      if (!rx) continue;
      const gate = new SyncGate(this.app, this.userId, name, rx, (waitFor) => this.touch(waitFor));
      await gate.load();
      this.gates.set(name, gate);
    }
    for (const name of syncedCollections(this.app)) {
      const rx = this.app.db.rx.collections[name] as RxCollection | undefined;
      if (!rx) continue;
      this.subscriptions.push(
        rx.eventBulks$.subscribe((bulk) => {
          const ids: string[] = [];
          for (const event of bulk.events) {
            const doc = (event.documentData ?? event.previousDocumentData) as SyncedDoc | undefined;
            if (doc?.userId === this.userId) ids.push(event.documentId);
          }
          if (ids.length === 0) return;
          this.gates.get(name)?.written(ids);
          this.touch([name]);
        }),
      );
    }
    if ([...this.gates.values()].some((gate) => gate.waiting > 0)) this.touch(syncedCollections(this.app));
  }

  /** Documents of these collections changed (or may have): re-check what waits for them, soon. */
  touch(names: readonly SyncedCollection[]): void {
    if (this.closed) return;
    for (const name of names) this.changed.add(name);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      const changed = this.changed;
      this.changed = new Set();
      this.queue = this.queue
        .then(() => this.run(changed))
        .catch((error: unknown) => this.app.log.warn('sync: re-checking waiting documents failed', { error: (error as Error).message }));
    }, 20);
  }

  private async run(changed: ReadonlySet<SyncedCollection>): Promise<void> {
    for (const gate of this.gates.values()) {
      if (this.closed) return;
      if ([...changed].some((name) => name !== gate.collection)) gate.scratch.clear();
      if (await gate.recheck(changed)) this.onReleased(gate.collection);
    }
  }

  /** Resolves when the re-checks started so far have run. */
  async idle(): Promise<void> {
    await this.queue;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const subscription of this.subscriptions.splice(0)) subscription.unsubscribe();
  }
}
