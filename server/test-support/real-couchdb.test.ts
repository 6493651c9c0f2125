import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RealCouchDb } from './real-couchdb';

describe('the real CouchDB of the test suite', () => {
  let couch: RealCouchDb;
  beforeAll(async () => {
    couch = await RealCouchDb.start();
  }, 90_000);
  afterAll(() => (couch as RealCouchDb | undefined)?.close()); // unset when beforeAll failed

  it('is Apache CouchDB 3.4.3, answers through the recording proxy, and goes away and back with its data', async () => {
    const welcome = await (await fetch(couch.url)).json();
    expect(welcome).toMatchObject({ couchdb: 'Welcome', version: '3.4.3' });
    const db = couch.client('smoke');
    await db.info(); // creates it (admin)
    await db.put({ _id: 'a', n: 1 });
    expect(couch.requests.some((r) => r.startsWith('PUT /smoke/a'))).toBe(true);
    await couch.stop();
    await expect(fetch(couch.url)).rejects.toThrow();
    await couch.start();
    expect((await couch.client('smoke').get('a')).n).toBe(1);
  });

  it('a plain user reads and writes only the databases it is a member of; wrong passwords get 401', async () => {
    await couch.setUser('phone', 'phone-secret', { members: ['phone_records'] });
    const phone = couch.client('phone_records', { username: 'phone', password: 'phone-secret' });
    await phone.put({ _id: 'r1', amount: 1 });
    await expect(couch.client('smoke', { username: 'phone', password: 'phone-secret' }).get('a')).rejects.toMatchObject({ status: 403 });
    await expect(couch.client('phone_records', { username: 'phone', password: 'nope' }).get('r1')).rejects.toMatchObject({ status: 401 });
  });
});
