import { normalizeMangoQuery, prepareQuery, type RxCollection } from 'rxdb';
import type { Subscription } from 'rxjs';
import type { AppContext } from '../app-context';
import { savingsErrors } from './errors';
import type { GoalDoc } from './schema';

/** The `goals` collection: each player's savings goals, read and written by the game's services. */
export class GoalStore {
  constructor(private readonly app: AppContext) {}

  private get collection(): RxCollection<GoalDoc> {
    return this.app.db.collection<GoalDoc>('goals');
  }

  /** A player's goals, newest first. */
  async ofUser(userId: string): Promise<GoalDoc[]> {
    const docs = await this.collection.find({ selector: { userId }, sort: [{ createdAt: 'desc' }, { id: 'desc' }] }).exec();
    return docs.map((d) => d.toJSON() as GoalDoc);
  }

  /** Goals that count against MAX_OPEN_GOALS (active or paused). */
  async openCount(userId: string): Promise<number> {
    return (await this.ofUser(userId)).filter((g) => g.status === 'active' || g.status === 'paused').length;
  }

  /** One goal of the player, or 4001 (also when it is another player's). */
  async own(userId: string, goalId: string): Promise<GoalDoc> {
    const doc = await this.collection.findOne(goalId).exec();
    if (!doc || doc.userId !== userId) throw savingsErrors.goalNotFound().with({ goalId });
    return doc.toJSON();
  }

  /** A player's goals including deleted ones (or the one with `id`), straight from storage. */
  async withDeleted(userId: string, id?: string): Promise<GoalDoc[]> {
    const storage = this.collection.storageInstance;
    if (id !== undefined) {
      const found: GoalDoc[] = await storage.findDocumentsById([id], true);
      return found.filter((g) => g.userId === userId);
    }
    const schema = this.collection.schema.jsonSchema;
    const query = prepareQuery(schema, normalizeMangoQuery(schema, { selector: { userId: { $eq: userId } } }));
    return (await storage.query(query)).documents;
  }

  async insert(goal: GoalDoc): Promise<void> {
    await this.collection.insert(goal);
  }

  /** Replaces a stored goal with `goal` (4001 when it is gone). */
  async write(goal: GoalDoc): Promise<void> {
    const doc = await this.collection.findOne(goal.id).exec();
    if (!doc) throw savingsErrors.goalNotFound().with({ goalId: goal.id });
    await doc.incrementalModify(() => goal);
  }

  async remove(goalId: string): Promise<void> {
    const doc = await this.collection.findOne(goalId).exec();
    await doc?.remove();
  }

  /** Calls `listener` for every goal written here or by sync (not for deletions). */
  watch(listener: (goal: GoalDoc) => void): Subscription {
    return this.collection.$.subscribe((event) => {
      const goal = event.documentData as GoalDoc | undefined;
      if (goal && event.operation !== 'DELETE') listener(goal);
    });
  }
}
