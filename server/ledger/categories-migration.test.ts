import { describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database';
import { startTestServer, tempDataDir } from '../test-support/test-server';
import { categoriesCollection, type CategoryDoc } from './schema';

// A file of its own: RxDB's open-source build allows 16 collections at once, fewer than two servers have.
describe('a data dir from before default keys', () => {
  it('marks the categories named like the English defaults as defaults, so they can follow a language switch', async () => {
    const dataDir = tempDataDir('categories-v0');
    const v0 = {
      ...categoriesCollection,
      schema: {
        ...categoriesCollection.schema,
        version: 0,
        properties: Object.fromEntries(Object.entries(categoriesCollection.schema.properties).filter(([k]) => k !== 'defaultKey')),
      },
      migrationStrategies: undefined,
    };
    const db = await openDatabase({ dataDir, collections: [v0 as never] });
    const doc = (id: string, type: string, name: string) => ({ id, userId: 'u1', type, name, icon: '', position: 0, createdAt: 1000, updatedAt: 1000 });
    await db.collection('categories').bulkInsert([doc('a', 'expense', 'Food'), doc('b', 'expense', 'Pets'), doc('c', 'income', 'Salary'), doc('d', 'income', 'Food')]);
    await db.close();
    const old = await startTestServer({ dataDir });
    try {
      const docs = (await old.server.app.db.collection<CategoryDoc>('categories').find().exec()).map((d) => d.toJSON());
      expect(Object.fromEntries(docs.map((d) => [d.id, d.defaultKey]))).toEqual({ a: 'food', b: '', c: 'salary', d: '' });
      const answer = await old.server.app.services.ledger.categories.renameDefaults('u1', { language: 'zh-CN' });
      expect(answer.changes).toEqual([
        { type: 'expense', from: 'Food', to: '餐饮' },
        { type: 'income', from: 'Salary', to: '工资' },
      ]);
    } finally {
      await old.close();
    }
  });
});
