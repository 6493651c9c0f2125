import type { RxCollection } from 'rxdb';
import type { AppContext } from '../app-context';
import { KeyedMutex } from '../lib/keyed-mutex';
import { newId } from '../lib/ids';
import type { Language } from '../lib/languages';
import { defaultCategories, defaultCategory, isUntouchedDefault, type CategoryType } from './default-categories';
import { ledgerErrors } from './errors';
import type { CategoryDoc, RecordDoc } from './schema';
import type { CategoryView } from './result-shapes';
import { nameKey } from '../lib/fold-text';

export type { CategoryView } from './result-shapes';

export type { CategoryType };

/** Records of category `from` now carry `to`. */
export interface CategoryRename {
  userId: string;
  type: CategoryType;
  from: string;
  to: string;
}

const view = (doc: CategoryDoc): CategoryView => ({ id: doc.id, type: doc.type, name: doc.name, icon: doc.icon, position: doc.position });
const key = (name: string) => nameKey(name);

/** User-defined income and expense categories, seeded with the default set of the account's language on first use. */
export class CategoryService {
  private readonly seeding = new KeyedMutex();
  /** Per-user categories, dropped whenever the collection changes for that user (sync included). */
  private readonly cache = new Map<string, CategoryDoc[]>();
  private subscription: { unsubscribe(): void } | undefined;
  private readonly renameListeners = new Set<(change: CategoryRename) => Promise<void>>();
  /** `userId|type|name` of the categories whose records moveRecords is moving. */
  private readonly moving = new Set<string>();

  constructor(private readonly app: AppContext) {}

  /**
   * Calls `listener` after a category's records moved to another name (a rename, a default
   * renamed to another language, a delete with moveTo), so what else names categories follows
   * (budgets). Answers the function that stops it.
   */
  onRenamed(listener: (change: CategoryRename) => Promise<void>): () => void {
    this.renameListeners.add(listener);
    return () => this.renameListeners.delete(listener);
  }

  start(): void {
    this.subscription = this.collection.eventBulks$.subscribe((bulk) => {
      for (const event of bulk.events) {
        const doc = (event.documentData ?? event.previousDocumentData) as CategoryDoc | undefined;
        if (doc) this.cache.delete(doc.userId);
      }
    });
  }

  stop(): void {
    this.subscription?.unsubscribe();
  }

  private get collection(): RxCollection<CategoryDoc> {
    return this.app.db.collection<CategoryDoc>('categories');
  }

  private async all(userId: string): Promise<CategoryDoc[]> {
    const cached = this.cache.get(userId);
    if (cached) return cached;
    const docs = await this.collection.find({ selector: { userId }, sort: [{ type: 'asc' }, { position: 'asc' }] }).exec();
    const list = docs.map((d) => d.toJSON() as CategoryDoc);
    this.cache.set(userId, list);
    return list;
  }

  /** The user's categories, creating the defaults the first time. */
  async list(userId: string, type?: CategoryType): Promise<CategoryView[]> {
    let docs = await this.all(userId);
    if (docs.length === 0) {
      docs = await this.seeding.run(userId, async () => {
        const again = await this.all(userId);
        if (again.length > 0) return again;
        const now = this.app.clock.now();
        const language = await this.app.services.users.language(userId);
        const seeded: CategoryDoc[] = (['expense', 'income'] as const).flatMap((t) =>
          defaultCategories(language, t).map((c, position) => ({
            id: newId(now),
            userId,
            type: t,
            name: c.names[language],
            icon: c.icon,
            position,
            defaultKey: c.key,
            createdAt: now,
            updatedAt: now,
          })),
        );
        await this.collection.bulkInsert(seeded);
        return seeded;
      });
    }
    return docs.filter((d) => !type || d.type === type).map(view);
  }

  /** The stored spelling of a category name, or a 400 that says how to fix it. */
  async resolve(userId: string, type: CategoryType, name: string): Promise<string> {
    const wanted = key(name);
    const found = (await this.list(userId, type)).find((c) => key(c.name) === wanted);
    if (!found) throw ledgerErrors.unknownCategory(type, name).at('category');
    return found.name;
  }

  /**
   * The category a record gets when none is named: the default "Other" of the account (in its
   * language, wherever the person moved or renamed it), else one named Other, else ''.
   */
  /** The name of one of the account's default categories (e.g. 'refund' → "Refund" / 退款), wherever it was renamed; undefined when it was deleted. */
  async defaultCategoryName(userId: string, type: CategoryType, defaultKey: string): Promise<string | undefined> {
    await this.list(userId, type); // seeds the defaults on first use
    return (await this.all(userId)).find((d) => d.type === type && d.defaultKey === defaultKey)?.name;
  }

  async fallbackName(userId: string, type: CategoryType): Promise<string> {
    await this.list(userId, type); // seeds the defaults on first use
    const other = (await this.all(userId)).find((d) => d.type === type && d.defaultKey === 'other');
    if (other) return other.name;
    return this.resolve(userId, type, 'Other').catch(() => '');
  }

  async create(userId: string, input: { type: CategoryType; name: string; icon?: string }): Promise<CategoryView> {
    const existing = await this.list(userId, input.type);
    const name = input.name.trim();
    if (existing.some((c) => key(c.name) === key(name))) {
      throw ledgerErrors.categoryExists(input.type, name);
    }
    const now = this.app.clock.now();
    const doc: CategoryDoc = {
      id: newId(now),
      userId,
      type: input.type,
      name,
      icon: input.icon ?? '',
      position: existing.reduce((max, c) => Math.max(max, c.position + 1), 0),
      defaultKey: '',
      createdAt: now,
      updatedAt: now,
    };
    await this.collection.insert(doc);
    return view(doc);
  }

  private async own(userId: string, id: string): Promise<CategoryDoc> {
    const doc = await this.collection.findOne(id).exec();
    if (!doc || doc.userId !== userId) throw ledgerErrors.categoryNotFound();
    return doc.toJSON();
  }

  /** Renames a category (and its icon); the records that use it follow the new name. */
  async update(userId: string, input: { id: string; name?: string; icon?: string }): Promise<CategoryView> {
    const current = await this.own(userId, input.id);
    const name = input.name?.trim() ?? current.name;
    if (key(name) !== key(current.name)) {
      const clash = (await this.list(userId, current.type)).some((c) => c.id !== current.id && key(c.name) === key(name));
      if (clash) throw ledgerErrors.categoryExists(current.type, name);
    }
    const doc = await this.collection.findOne(current.id).exec();
    if (!doc) throw ledgerErrors.categoryNotFound();
    const updated = await doc.incrementalPatch({ name, icon: input.icon ?? current.icon, updatedAt: this.app.clock.now() });
    if (name !== current.name) await this.moveRecords(userId, current.type, current.name, name);
    return view(updated.toJSON());
  }

  private async moveRecords(userId: string, type: CategoryType, from: string, to: string): Promise<number> {
    const records = this.app.db.collection<RecordDoc>('records');
    const docs = await records.find({ selector: { userId, category: from, type } }).exec();
    const now = this.app.clock.now();
    const moving = `${userId}|${type}|${from}`;
    this.moving.add(moving);
    try {
      for (const doc of docs) await doc.incrementalPatch({ category: to, updatedAt: now });
    } finally {
      this.moving.delete(moving);
    }
    for (const listener of this.renameListeners) await listener({ userId, type, from, to });
    return docs.length;
  }

  /** Whether records of this category are being moved by a rename, merge or delete right now (not by the person, record by record). */
  isMoving(userId: string, type: CategoryType, from: string): boolean {
    return this.moving.has(`${userId}|${type}|${from}`);
  }

  /**
   * Deletes a category. Records that use it move to `moveTo` (another category of the same type);
   * without `moveTo`, a category that is still used is refused with 409 saying how many records use it.
   */
  async delete(userId: string, input: { id: string; moveTo?: string }): Promise<{ deleted: true; movedRecords: number }> {
    const current = await this.own(userId, input.id);
    const records = this.app.db.collection<RecordDoc>('records');
    const used = await records.count({ selector: { userId, category: current.name, type: current.type } }).exec();
    let moved = 0;
    if (used > 0) {
      if (!input.moveTo) {
        throw ledgerErrors.categoryInUse(used, current.name, current.type).with({ records: used });
      }
      const target = await this.resolve(userId, current.type, input.moveTo);
      if (key(target) === key(current.name)) throw ledgerErrors.moveToSameCategory();
      moved = await this.moveRecords(userId, current.type, current.name, target);
    }
    const doc = await this.collection.findOne(current.id).exec();
    if (!doc) throw ledgerErrors.categoryNotFound();
    await doc.remove();
    return { deleted: true, movedRecords: moved };
  }

  /**
   * Renames the default categories that still carry a default name (in any language) to their
   * names in `language`; the records that use them follow. A default whose new name is already
   * taken by another category of its type keeps its name (`kept`). With `preview`, nothing
   * changes and the answer says what would.
   */
  async renameDefaults(
    userId: string,
    input: { language: Language; preview?: boolean },
  ): Promise<{ renamed: number; kept: number; changes: Array<{ type: CategoryType; from: string; to: string }> }> {
    return this.seeding.run(userId, async () => {
      const docs = await this.all(userId);
      const taken = new Set(docs.map((d) => `${d.type}:${key(d.name)}`));
      const changes: Array<{ id: string; type: CategoryType; from: string; to: string }> = [];
      let kept = 0;
      for (const doc of docs) {
        if (!isUntouchedDefault(doc)) continue;
        const to = defaultCategory(doc.type, doc.defaultKey ?? '')?.names[input.language];
        if (to === undefined || to === doc.name) continue;
        if (key(to) !== key(doc.name) && taken.has(`${doc.type}:${key(to)}`)) {
          kept++;
          continue;
        }
        taken.delete(`${doc.type}:${key(doc.name)}`);
        taken.add(`${doc.type}:${key(to)}`);
        changes.push({ id: doc.id, type: doc.type, from: doc.name, to });
      }
      if (!input.preview) {
        const now = this.app.clock.now();
        for (const change of changes) {
          const doc = await this.collection.findOne(change.id).exec();
          if (!doc) continue;
          await doc.incrementalPatch({ name: change.to, updatedAt: now });
          await this.moveRecords(userId, change.type, change.from, change.to);
        }
      }
      return { renamed: changes.length, kept, changes: changes.map(({ type, from, to }) => ({ type, from, to })) };
    });
  }
}
