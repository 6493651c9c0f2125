import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { errorChain } from '../lib/error-chain';
import { scanLog } from './leveldb-log';

/**
 * Checks around the LevelDB open (docs/data-safety.md, "When the disk or the database is damaged").
 *
 * LevelDB, as classic-level opens it, repairs what it meets in silence: with `createIfMissing` a
 * folder whose CURRENT file is gone is taken for a new database — a fresh MANIFEST is written and
 * every table file holding the old data is deleted as obsolete — and a damaged stretch of a log is
 * skipped ("ignoring error … dropping N bytes"), after which the log is deleted. So before the open
 * PennyPost looks at the folder itself and refuses, with nothing changed, when:
 *   - table or log files are there but CURRENT is not (or CURRENT names a MANIFEST that is gone);
 *   - a log would lose records when replayed (read with LevelDB's own rules, leveldb-log.ts);
 * and after the open it reads the LOG lines of that open and refuses if LevelDB still reported
 * corruption. Errors LevelDB itself raises at the open are rephrased with the folder, the cause
 * and what to do.
 */

export class DatabaseDamagedError extends Error {
  readonly code = 'DATABASE_DAMAGED';
  constructor(
    readonly dataDir: string,
    readonly levelDir: string,
    /** What is wrong, in a sentence without the remedy. */
    readonly damage: string,
    readonly details: string[] = [],
  ) {
    super(
      `The database in ${levelDir} is damaged: ${damage} PennyPost did not open it, so nothing in it was changed or deleted. ` +
        `What to do: stop every PennyPost using ${dataDir}, then run \`pennypost repair --data-dir ${dataDir}\` ` +
        `(it first copies the db folder aside, then recovers what LevelDB can read and reports what changed), ` +
        `and \`pennypost check --data-dir ${dataDir}\` to verify the result. See docs/data-safety.md.`,
    );
    this.name = 'DatabaseDamagedError';
  }
}

/** The database could not be opened for a reason other than damage (permissions, a missing disk…). */
export class DatabaseOpenError extends Error {
  readonly code = 'DATABASE_OPEN_FAILED';
  constructor(
    readonly dataDir: string,
    readonly levelDir: string,
    cause: unknown,
  ) {
    // Whatever was thrown: an Error, a LevelDB error with its own cause, or anything else.
    const reason = (cause as Partial<Error> | null | undefined)?.message ?? String(cause);
    const inner = (cause as { cause?: Partial<Error> } | null | undefined)?.cause?.message;
    super(
      `The database in ${levelDir} could not be opened: ${inner && !reason.includes(inner) ? `${reason} (${inner})` : reason}. ` +
        `Check that the folder exists, that this user can read and write it and every file in it, and that its disk is mounted and not full; ` +
        `or choose another data dir with --data-dir. If the message speaks of corruption, run \`pennypost check --data-dir ${dataDir}\`.`,
      { cause },
    );
    this.name = 'DatabaseOpenError';
  }
}

const TABLE_FILE = /^\d+\.(ldb|sst)$/;
const LOG_FILE = /^\d+\.log$/;
const MANIFEST_FILE = /^MANIFEST-\d+$/;

export interface LevelDirState {
  /** false: no LevelDB data yet (missing or empty folder): LevelDB may create a database. */
  existing: boolean;
  tables: string[];
  logs: string[];
}

/** Names of the files that hold data (tables, logs, manifests), to tell a new folder from a used one. */
export function levelDataFiles(levelDir: string): string[] {
  if (!existsSync(levelDir)) return [];
  return readdirSync(levelDir).filter((name) => TABLE_FILE.test(name) || LOG_FILE.test(name) || MANIFEST_FILE.test(name) || name === 'CURRENT');
}

/**
 * Looks at a LevelDB folder before it is opened, changing nothing. Throws DatabaseDamagedError
 * when opening it would lose or delete data.
 */
export function inspectLevelDir(dataDir: string, levelDir: string): LevelDirState {
  const files = levelDataFiles(levelDir);
  if (files.length === 0) return { existing: false, tables: [], logs: [] };
  const tables = files.filter((f) => TABLE_FILE.test(f));
  const logs = files.filter((f) => LOG_FILE.test(f));
  const manifests = files.filter((f) => MANIFEST_FILE.test(f));
  const holding = `${tables.length} table file(s), ${logs.length} log file(s) and ${manifests.length} MANIFEST file(s)`;
  if (!files.includes('CURRENT')) {
    throw new DatabaseDamagedError(
      dataDir,
      levelDir,
      `the file CURRENT is missing, but the folder holds ${holding} — your data. ` + 'Opened as it is, LevelDB would take it for a new, empty database and delete those files.',
    );
  }
  const current = readFileSync(path.join(levelDir, 'CURRENT'), 'latin1');
  const named = /^(MANIFEST-\d+)\n$/.exec(current)?.[1];
  if (!named) {
    throw new DatabaseDamagedError(dataDir, levelDir, `the file CURRENT does not name a MANIFEST (it holds ${JSON.stringify(current.slice(0, 40))}).`);
  }
  if (!manifests.includes(named)) {
    throw new DatabaseDamagedError(dataDir, levelDir, `the MANIFEST named by CURRENT (${named}, the list of table files) is missing; the folder holds ${holding}.`);
  }
  if (statSync(path.join(levelDir, named)).size === 0) {
    throw new DatabaseDamagedError(dataDir, levelDir, `the MANIFEST named by CURRENT (${named}) is empty.`);
  }
  const details: string[] = [];
  for (const log of logs) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(path.join(levelDir, log));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // rotated away by a running PennyPost
      throw error;
    }
    const scan = scanLog(bytes);
    for (const drop of scan.drops) details.push(`${log}: ${drop.bytes} bytes at offset ${drop.offset} unreadable (${drop.reason})`);
  }
  if (details.length > 0) {
    throw new DatabaseDamagedError(
      dataDir,
      levelDir,
      `its write-ahead log is damaged (${details.join('; ')}). ` + 'Replaying it would silently drop records that were saved and acknowledged.',
      details,
    );
  }
  return { existing: true, tables, logs };
}

/** LOG lines in which LevelDB reports damage it met (and, without paranoid checks, skipped). */
const DAMAGE_LINE = /Corruption|ignoring error|dropping \d+ bytes|missing files/i;

/**
 * The damage LevelDB reported while opening, from the info LOG it started for this open (LevelDB
 * renames the previous one to LOG.old at every open). Empty when the open was clean.
 */
export function damageReportedAtOpen(levelDir: string): string[] {
  let text: string;
  try {
    text = readFileSync(path.join(levelDir, 'LOG'), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => DAMAGE_LINE.test(line))
    .map((line) => line.replace(/^\S+ \S+ /, '').trim()); // drop the timestamp and thread id
}

/** Turns a failed LevelDB open into a message with the folder, the cause and the remedy. */
export function explainOpenFailure(dataDir: string, levelDir: string, error: unknown): Error {
  if (error instanceof DatabaseDamagedError || error instanceof DatabaseOpenError) return error;
  const texts: string[] = [];
  for (let e = error as { message?: unknown; cause?: unknown; code?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (typeof e.message === 'string') texts.push(e.message);
    if (e.code === 'LEVEL_CORRUPTION') texts.push('Corruption');
  }
  const all = texts.join(' | ');
  if (/Corruption|missing files|does not exist \(create_if_missing is false\)|MANIFEST/i.test(all)) {
    const leveldbSays = texts.find((t) => /Corruption|missing|does not exist|MANIFEST/i.test(t)) ?? all;
    return new DatabaseDamagedError(dataDir, levelDir, `LevelDB refused to open it: "${leveldbSays}".`);
  }
  return new DatabaseOpenError(dataDir, levelDir, error);
}

/** True when a storage error says the stored data is damaged (LevelDB "Corruption: …"). */
export function isCorruptionError(error: unknown): boolean {
  return errorChain(error).some((e) => e.code === 'LEVEL_CORRUPTION' || e.code === 'DATABASE_DAMAGED' || (typeof e.message === 'string' && /\bCorruption:/.test(e.message)));
}

/**
 * True when another process holds the LevelDB lock of `levelDir`, found out without opening the
 * database (an open would already replay logs). LevelDB locks `<dir>/LOCK` with fcntl; this opens
 * LevelDB on an empty scratch folder whose LOCK is a symbolic link to that file, so taking the
 * lock is all that can happen there. For the data tools, which run in their own process: fcntl
 * locks of one process do not exclude each other, and closing the probe would release a lock
 * this same process held, so never call it where a server runs in-process.
 */
export async function levelDirLockedByOtherProcess(levelDir: string): Promise<boolean> {
  const lockFile = path.join(levelDir, 'LOCK');
  if (!existsSync(lockFile)) return false;
  const { mkdtempSync, rmSync, symlinkSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { ClassicLevel } = await import('classic-level');
  const scratch = mkdtempSync(path.join(tmpdir(), 'pennypost-lock-probe-'));
  try {
    symlinkSync(path.resolve(lockFile), path.join(scratch, 'LOCK'));
    const probe = new ClassicLevel(scratch, { createIfMissing: false });
    try {
      await probe.open();
      await probe.close();
      return false;
    } catch (error) {
      const e = error as { code?: string; cause?: { code?: string } };
      return e.code === 'LEVEL_LOCKED' || e.cause?.code === 'LEVEL_LOCKED';
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
