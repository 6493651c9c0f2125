import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../app-context';
import type { RecordDoc } from '../../ledger/public';
import type { StatementFormat } from '../formats/types';

/** Records per stored part of a journal (one local-store value each, about 2 MB). */
const DOCS_PER_PART = 5000;

const metaPrefix = (userId: string) => `imports:commitJournal:${userId}:`;
const partKey = (userId: string, id: string, part: number) => `imports:commitDocs:${userId}:${id}:${String(part).padStart(5, '0')}`;

export interface JournalMeta {
  id: string;
  userId: string;
  format: StatementFormat;
  account: string;
  startedAt: number;
  /** Records the commit set out to write. */
  records: number;
  parts: number;
  newCategories: Array<{ type: 'income' | 'expense'; name: string }>;
  /** 'ready' once every part is stored: only then does the commit write to the ledger. */
  state: 'storing' | 'ready';
}

/**
 * What an import commit is about to write, kept in the local store until the commit is done
 * (docs/import.md, "An interrupted import"). A commit writes its records in batches; if the
 * process dies between two batches (a crash, a power cut, kill -9), the journal is still there at
 * the next start: `import.interrupted` lists it with how much of it is in the ledger, and
 * `import.finish` writes the rest (the records already written are recognised by their importKey,
 * so nothing is doubled).
 */
export class CommitJournal {
  /** Journals of commits running in this process (not interrupted). */
  private readonly running = new Set<string>();

  constructor(private readonly app: AppContext) {}

  /** Stores the records a commit will write; the commit writes only once this resolved. */
  async begin(userId: string, info: Pick<JournalMeta, 'format' | 'account' | 'newCategories'>, docs: readonly RecordDoc[]): Promise<string> {
    const id = randomBytes(12).toString('base64url');
    this.running.add(id);
    const parts = Math.ceil(docs.length / DOCS_PER_PART);
    const meta: JournalMeta = { id, userId, ...info, startedAt: this.app.clock.now(), records: docs.length, parts, state: 'storing' };
    const local = this.app.db.local;
    await local.put(metaPrefix(userId) + id, meta);
    for (let part = 0; part < parts; part++) {
      await local.put(partKey(userId, id, part), docs.slice(part * DOCS_PER_PART, (part + 1) * DOCS_PER_PART));
    }
    await local.put(metaPrefix(userId) + id, { ...meta, state: 'ready' });
    return id;
  }

  /** The commit is over (done, or refused before it wrote anything): the journal goes. */
  async end(userId: string, id: string): Promise<void> {
    const meta = await this.app.db.local.get<JournalMeta>(metaPrefix(userId) + id);
    this.running.delete(id);
    if (!meta) return;
    const ops: Array<{ type: 'del'; key: string }> = [{ type: 'del', key: metaPrefix(userId) + id }];
    for (let part = 0; part < meta.parts; part++) ops.push({ type: 'del', key: partKey(userId, id, part) });
    await this.app.db.local.batch(ops);
  }

  /** The commit stopped part-way without the process dying (a write failed): it shows as interrupted. */
  release(id: string): void {
    this.running.delete(id);
  }

  /** The person's interrupted commits (journals of no running commit), oldest first. A journal cut off while it was being stored wrote nothing: it is dropped. */
  async interrupted(userId: string): Promise<JournalMeta[]> {
    const found: JournalMeta[] = [];
    for (const [, meta] of await this.app.db.local.entries<JournalMeta>(metaPrefix(userId))) {
      if (this.running.has(meta.id)) continue;
      if (meta.state !== 'ready') {
        await this.end(userId, meta.id);
        continue;
      }
      found.push(meta);
    }
    return found.sort((a, b) => a.startedAt - b.startedAt);
  }

  async get(userId: string, id: string): Promise<JournalMeta | undefined> {
    const meta = await this.app.db.local.get<JournalMeta>(metaPrefix(userId) + id);
    return meta && meta.state === 'ready' && !this.running.has(id) ? meta : undefined;
  }

  /** The records of a journal, part by part (the server's thread is given back between parts). */
  async *records(meta: JournalMeta): AsyncGenerator<RecordDoc[]> {
    for (let part = 0; part < meta.parts; part++) {
      yield (await this.app.db.local.get<RecordDoc[]>(partKey(meta.userId, meta.id, part))) ?? [];
    }
  }

  /** Marks a journal as being finished by this process (so it is not listed meanwhile). */
  claim(id: string): boolean {
    if (this.running.has(id)) return false;
    this.running.add(id);
    return true;
  }

  async forgetUser(userId: string): Promise<void> {
    const local = this.app.db.local;
    for (const prefix of [metaPrefix(userId), `imports:commitDocs:${userId}:`]) {
      const entries = await local.entries(prefix);
      if (entries.length > 0) await local.batch(entries.map(([key]) => ({ type: 'del' as const, key })));
    }
  }
}
