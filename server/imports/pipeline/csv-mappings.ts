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

  /** The columns of a CSV file, a guess at its mapping, and the mapping saved for its source. */
  async describe(userId: string, bytes: Buffer, options: { skipRows?: number; delimiter?: ',' | ';' | '\t' } = {}) {
    const described = this.read(bytes, options);
    const saved = await this.app.db.local.get<CsvMapping>(keyOf(userId, described.signature));
    return { ...described, guess: guessMapping(described.headers), ...(saved ? { saved } : {}) };
  }

  /** The mapping to use: the one given, else the one saved for this source; none → 400 naming the columns. */
  async resolve(userId: string, bytes: Buffer, given: CsvMapping | undefined): Promise<CsvMapping> {
    if (given) return given;
    const described = this.read(bytes, {});
    const saved = await this.app.db.local.get<CsvMapping>(keyOf(userId, described.signature));
    if (saved) return saved;
    throw importErrors.mappingNeeded().with({ field: 'mapping', headers: described.headers, guess: guessMapping(described.headers) });
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
