import { readFileSync } from 'node:fs';
import { StatementError, type ParsedStatement, type ParseOptions, type StatementParser } from '../types';

/** The bytes of a fixture under formats/tests/fixtures/ (e.g. 'ofx/bank-v211.ofx'). */
export const fixture = (name: string): Buffer => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));

/** Runs a parser that is synchronous (every format but the WeChat XLSX reader). */
export function parseNow(parser: StatementParser, bytes: Buffer, options: ParseOptions): ParsedStatement {
  const parsed = parser(bytes, options);
  if (parsed instanceof Promise) throw new Error('the parser is synchronous');
  return parsed;
}

/** The StatementError `run` throws (any other outcome fails the test). */
export function statementError(run: () => unknown): StatementError {
  try {
    run();
  } catch (error) {
    if (error instanceof StatementError) return error;
    throw error;
  }
  throw new Error('expected a StatementError');
}
