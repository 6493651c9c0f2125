import type { AppContext } from '../../app-context';
import { importErrors } from '../errors';
import { describeCsv, guessMapping } from '../formats/csv-mapped';
import { StatementError, type CsvMapping } from '../formats/types';

const keyOf = (userId: string, signature: string) => `imports:csvMapping:${userId}:${signature}`;

/**
 * Column mappings of generic CSV files, saved per source: a source is known by its header row
 * (describeCsv's signature), so the second statement from the same bank imports without asking.
 * In the local store, per account.
 */
export class CsvMappings {
  constructor(private readonly app: AppContext) {}

  /** The columns of a CSV file, a guess at its mapping, and the mapping saved for its source (the columns then read as it reads them). */
  async describe(userId: string, bytes: Buffer, options: { skipRows?: number; delimiter?: ',' | ';' | '\t' } = {}) {
    const given = options.skipRows !== undefined || options.delimiter !== undefined;
    const saved = given ? await this.savedFor(userId, this.read(bytes, options).signature) : await this.findSaved(userId, bytes);
    const described = saved && !given ? this.read(bytes, { skipRows: saved.skipRows, delimiter: saved.delimiter, encoding: saved.encoding }) : this.read(bytes, options);
    return { ...described, guess: guessMapping(described.headers), ...(saved ? { saved } : {}) };
  }

  /** The mapping to use: the one given, else the one saved for this source; none → 400 naming the columns. */
  async resolve(userId: string, bytes: Buffer, given: CsvMapping | undefined): Promise<CsvMapping> {
    if (given) return given;
    const saved = await this.findSaved(userId, bytes);
    if (saved) return saved;
    const described = this.read(bytes, {});
    throw importErrors.mappingNeeded().with({ field: 'mapping', headers: described.headers, guess: guessMapping(described.headers) });
  }

  private savedFor(userId: string, signature: string): Promise<CsvMapping | undefined> {
    return this.app.db.local.get<CsvMapping>(keyOf(userId, signature));
  }

  /**
   * The saved mapping whose source this file is. A mapping that skips lines, names a delimiter or
   * an encoding sees another header row than the default reading: the file is read as each such
   * saved mapping would read it.
   */
  private async findSaved(userId: string, bytes: Buffer): Promise<CsvMapping | undefined> {
    let plain: CsvMapping | undefined;
    try {
      plain = await this.savedFor(userId, this.read(bytes, {}).signature);
    } catch {
      plain = undefined; // unreadable without a saved mapping's options: try those below
    }
    if (plain) return plain;
    const prefix = keyOf(userId, '');
    for (const [key, mapping] of await this.app.db.local.entries<CsvMapping>(prefix)) {
      if (mapping.skipRows === undefined && mapping.delimiter === undefined && mapping.encoding === undefined) continue;
      try {
        if (this.read(bytes, { skipRows: mapping.skipRows, delimiter: mapping.delimiter, encoding: mapping.encoding }).signature === key.slice(prefix.length)) return mapping;
      } catch {
        // not this source's layout
      }
    }
    return undefined;
  }

  async remember(userId: string, bytes: Buffer, mapping: CsvMapping): Promise<void> {
    const { signature } = this.read(bytes, { skipRows: mapping.skipRows, delimiter: mapping.delimiter, encoding: mapping.encoding });
    await this.app.db.local.put(keyOf(userId, signature), mapping);
  }

  async forgetUser(userId: string): Promise<void> {
    const entries = await this.app.db.local.entries(`imports:csvMapping:${userId}:`);
    if (entries.length > 0) await this.app.db.local.batch(entries.map(([key]) => ({ type: 'del' as const, key })));
  }

  private read(bytes: Buffer, options: { skipRows?: number; delimiter?: ',' | ';' | '\t'; encoding?: CsvMapping['encoding'] }) {
    try {
      return describeCsv(bytes, options);
    } catch (error) {
      if (error instanceof StatementError) throw importErrors.unreadableStatement('CSV', error.message).with({ field: 'content', kind: error.kind });
      throw error;
    }
  }
}
