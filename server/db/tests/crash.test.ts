/**
 * Crash safety: a child process writes through openDatabase and acknowledges ids on stdout;
 * the test kills it with SIGKILL at a random (seeded) moment, reopens the data dir and checks
 * that every acknowledged document is there and intact and the database still works.
 * Rounds reuse the same data dir, so each round also recovers from the previous crash.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openDatabase } from '../database';
import { crashRecord, recordSchema, seededRandom, tempDir, type AccountRecord } from './fixtures';

const ROUNDS = 6;
const dir = tempDir('pennypost-crash-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeUntilKilled(round: number, delayMs: number): Promise<{ acked: string[]; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'crash-writer.ts'), dir, String(round)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const acked: string[] = [];
    let buffer = '';
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    const failsafe = setTimeout(() => child.kill('SIGKILL'), 30_000); // no ack at all: fail, do not hang
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) {
        if (line.startsWith('ack ')) {
          acked.push(line.slice(4));
          timer ??= setTimeout(() => child.kill('SIGKILL'), delayMs);
        }
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (_code, signal) => {
      clearTimeout(failsafe);
      if (timer) clearTimeout(timer);
      // A partial last line is not an acknowledgement.
      resolve({ acked, signal, stderr });
    });
  });
}

it(`every acknowledged write survives kill -9 (${ROUNDS} rounds)`, { timeout: 120_000 }, async () => {
  const rand = seededRandom(20261121);
  const allAcked: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const delay = 200 + Math.floor(rand() * 1000);
    const { acked, signal, stderr } = await writeUntilKilled(round, delay);
    expect(stderr).toBe('');
    expect(signal).toBe('SIGKILL');
    expect(acked.length).toBeGreaterThan(0);
    allAcked.push(...acked);

    const db = await openDatabase({ dataDir: dir, collections: [{ name: 'records', schema: recordSchema }] });
    try {
      const records = db.collection<AccountRecord>('records');
      const found = await records.findByIds(allAcked).exec();
      const missing = allAcked.filter((id) => !found.has(id));
      expect(missing, `round ${round}: acknowledged but lost`).toEqual([]);
      for (const id of allAcked) expect(found.get(id)!.toJSON(), id).toEqual(crashRecord(id));
      // Documents written but not yet acknowledged when the kill came may exist; they must be intact too.
      const everything = await records.find().exec();
      expect(everything.length).toBeGreaterThanOrEqual(allAcked.length);
      for (const doc of everything) {
        if (doc.id.startsWith('probe-')) continue;
        expect(doc.toJSON()).toEqual(crashRecord(doc.id));
      }
      // The database is usable: a new write and an index query see it.
      const probe = { ...crashRecord(`r${round}-0`), id: `probe-${round}`, userId: 'probe-user' };
      await records.insert(probe);
      const probes = await records.find({ selector: { userId: 'probe-user' }, sort: [{ date: 'asc' }] }).exec();
      expect(probes.map((d) => d.id).sort()).toEqual(Array.from({ length: round + 1 }, (_, i) => `probe-${i}`));
    } finally {
      await db.close();
    }
  }
  expect(allAcked.length).toBeGreaterThan(ROUNDS * 10);
});
