import type { AppContext } from '../../app-context';
import { importErrors } from '../errors';
import type { CsvDescription } from '../formats/csv-mapped';
import type { CsvMapping } from '../formats/types';
import type { StatementReader } from './statement-reader';

const keyOf = (userId: string, signature: string) => `imports:csvMapping:${userId}:${signature}`;

/**
 * Column mappings of generic CSV files, saved per source: a source is known by its header row
 * (describeCsv's signature), so the second statement from the same bank imports without asking.
 * In the local store, per account.
 */
export class CsvMappings {
  constructor(
    private readonly app: AppContext,
    private readonly reader: StatementReader,
  ) {}

  /** The columns of a CSV file, a guess at its mapping, and the mapping saved for its source (the columns then read as it reads them). */
  async describe(userId: string, bytes: Buffer, options: { skipRows?: number; delimiter?: ',' | ';' | '\t'; header?: boolean } = {}) {
    const given = options.skipRows !== undefined || options.delimiter !== undefined || options.header !== undefined;
    const saved = given ? await this.savedFor(userId, (await this.read(bytes, options)).signature) : await this.findSaved(userId, bytes);
    const described =
      saved && !given
        ? await this.read(bytes, { skipRows: saved.skipRows, delimiter: saved.delimiter, encoding: saved.encoding, header: saved.header })
        : await this.read(bytes, options);
    return { ...described, ...(saved ? { saved } : {}) };
  }

  /** The mapping to use: the one given, else the one saved for this source; none → 400 naming the columns. */
  async resolve(userId: string, bytes: Buffer, given: CsvMapping | undefined): Promise<CsvMapping> {
    if (given) return given;
    const saved = await this.findSaved(userId, bytes);
    if (saved) return saved;
    const described = await this.read(bytes, {});
    throw importErrors.mappingNeeded().with({ field: 'mapping', headers: described.headers, guess: described.guess });
  }

  private savedFor(userId: string, signature: string): Promise<CsvMapping | undefined> {
    return this.app.db.local.get<CsvMapping>(keyOf(userId, signature));
  }

  /**
   * The saved mapping whose source this file is. A mapping that skips lines, names a delimiter or
   * an encoding sees another header row than the default reading: the file is read as each such
   * saved mapping would read it (all readings in one trip to the reading thread).
   */
  private async findSaved(userId: string, bytes: Buffer): Promise<CsvMapping | undefined> {
    const prefix = keyOf(userId, '');
    const withOptions = (await this.app.db.local.entries<CsvMapping>(prefix)).filter(
      ([, mapping]) => mapping.skipRows !== undefined || mapping.delimiter !== undefined || mapping.encoding !== undefined || mapping.header !== undefined,
    );
    const readings = await this.reader.describe(bytes, [
      {},
      ...withOptions.map(([, mapping]) => ({ skipRows: mapping.skipRows, delimiter: mapping.delimiter, encoding: mapping.encoding, header: mapping.header })),
    ]);
    // One reading per variant, in order: the plain one, then one per mapping with options.
    const plain = readings.at(0);
    if (plain?.ok) {
      const found = await this.savedFor(userId, plain.description.signature);
      if (found) return found;
    }
    for (const [index, [key, mapping]] of withOptions.entries()) {
      const reading = readings.at(index + 1);
      if (reading?.ok && reading.description.signature === key.slice(prefix.length)) return mapping;
    }
    return undefined;
  }

  /** Saves a mapping for the source whose layout has `signature` (read with the mapping's own options, by the preview). */
  async rememberAs(userId: string, signature: string, mapping: CsvMapping): Promise<void> {
    await this.app.db.local.put(keyOf(userId, signature), mapping);
  }

  async forgetUser(userId: string): Promise<void> {
    const entries = await this.app.db.local.entries(`imports:csvMapping:${userId}:`);
    if (entries.length > 0) await this.app.db.local.batch(entries.map(([key]) => ({ type: 'del' as const, key })));
  }

  private async read(
    bytes: Buffer,
    options: { skipRows?: number; delimiter?: ',' | ';' | '\t'; encoding?: CsvMapping['encoding']; header?: boolean },
  ): Promise<CsvDescription & { guess: Partial<CsvMapping> }> {
    const reading = (await this.reader.describe(bytes, [options])).at(0);
    if (reading === undefined) throw new Error('The statement reader answered no reading of the one variant asked.');
    if (!reading.ok) throw importErrors.unreadableStatement('CSV', reading.message).with({ field: 'content', kind: reading.kind });
    return reading.description;
  }
}
