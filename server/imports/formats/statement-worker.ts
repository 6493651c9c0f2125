import { guessFor } from './csv-guess';
import { describeCsv, type CsvDelimiter, type CsvDescription } from './csv-mapped';
import { accountOf, guessFormat, parseStatement } from './registry';
import { StatementError, type CsvMapping, type ParseOptions, type StatementFormat } from './types';

/**
 * Statement work done in the work thread (server/work-thread.ts; server/imports/pipeline/
 * statement-reader.ts hands it the files): parsing a file of up to 64 MiB takes seconds of CPU,
 * which on the server's own thread would hold every other request (/send, /healthz) for as long.
 * The server's thread only passes the bytes and receives the lines, in slices of LINES_PER_MESSAGE
 * so that taking them in never holds it long.
 */

/** Lines per message back: receiving one slice costs the server's thread a few milliseconds. */
const LINES_PER_MESSAGE = 2000;
/** What describe answers of a cell and of a row (what the wizard shows; the signature reads them whole). */
const SHOWN_CELL = 200;
const SHOWN_COLUMNS = 501;

const shown = (cells: string[]) => cells.slice(0, SHOWN_COLUMNS).map((cell) => (cell.length > SHOWN_CELL ? `${cell.slice(0, SHOWN_CELL)}…` : cell));

/** describeCsv, with the guess at a mapping, and cut to what can be shown. */
function describeForWizard(bytes: Buffer, variant: DescribeOptions): CsvDescription & { guess: ReturnType<typeof guessFor> } {
  const description = describeCsv(bytes, variant);
  return {
    headers: shown(description.headers),
    delimiter: description.delimiter,
    sample: description.sample.map(shown),
    signature: description.signature,
    skipRows: description.skipRows,
    header: description.header,
    guess: guessFor(description),
  };
}

export type DescribeOptions = { skipRows?: number; delimiter?: CsvDelimiter; encoding?: CsvMapping['encoding']; header?: boolean };

export type WorkerTask =
  | { op: 'parse'; format: StatementFormat; bytes: Uint8Array; options: ParseOptions }
  | { op: 'describe'; bytes: Uint8Array; variants: DescribeOptions[] }
  | { op: 'guess'; bytes: Uint8Array };
export type WorkerJob = WorkerTask & { id: number };

export type WorkerReply =
  | { id: 0; type: 'ready' }
  | { id: number; type: 'lines'; lines: unknown[] }
  | { id: number; type: 'invalid'; invalid: unknown[] }
  | { id: number; type: 'done'; value: unknown }
  | { id: number; type: 'refused'; kind: string; message: string }
  | { id: number; type: 'failed'; message: string };

/** Runs one statement job in the work thread, posting its replies; a refusal is a 'refused' reply. */
export async function runStatementJob(job: WorkerJob, post: (reply: WorkerReply) => void): Promise<void> {
  try {
    await run(job, post);
  } catch (error) {
    if (error instanceof StatementError) post({ id: job.id, type: 'refused', kind: error.kind, message: error.message });
    else throw error;
  }
}

async function run(job: WorkerJob, post: (reply: WorkerReply) => void): Promise<void> {
  const bytes = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
  if (job.op === 'guess') {
    // Which format the file is (its header and structure), and the account it names.
    const format = guessFormat(bytes);
    post({ id: job.id, type: 'done', value: { format, account: accountOf(format, bytes) } });
    return;
  }
  if (job.op === 'describe') {
    // One answer per way of reading the file (the saved mappings' skipRows, delimiter, encoding).
    const value = job.variants.map((variant) => {
      try {
        return { ok: true as const, description: describeForWizard(bytes, variant) };
      } catch (error) {
        if (error instanceof StatementError) return { ok: false as const, kind: error.kind, message: error.message };
        throw error;
      }
    });
    post({ id: job.id, type: 'done', value });
    return;
  }
  const { lines, invalid, ...rest } = await parseStatement(job.format, bytes, job.options);
  for (let i = 0; i < lines.length; i += LINES_PER_MESSAGE) post({ id: job.id, type: 'lines', lines: lines.slice(i, i + LINES_PER_MESSAGE) });
  for (let i = 0; i < invalid.length; i += LINES_PER_MESSAGE) post({ id: job.id, type: 'invalid', invalid: invalid.slice(i, i + LINES_PER_MESSAGE) });
  let signature: string | undefined;
  if (job.format === 'csv' && job.options.mapping) {
    const { skipRows, delimiter, encoding, header } = job.options.mapping;
    signature = describeCsv(bytes, { skipRows, delimiter, encoding, header }).signature;
  }
  post({ id: job.id, type: 'done', value: { ...rest, ...(signature ? { signature } : {}) } });
}
