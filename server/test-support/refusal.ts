import { expect } from 'vitest';
import { allErrorCatalogues } from '../domains';
import { signInErrors } from '../http/sign-in';

/** An /api answer as t.api (test-server.ts) and the reliability helpers (reliability/helpers.ts) return it. */
interface RefusalAnswer {
  readonly status: number;
  readonly code: number;
  readonly message: string;
  readonly data: unknown;
}

/** One row of an error catalogue (`ledgerErrors.rows.assetNotFound`, `commonErrors.rows.invalid`). */
interface RefusalRow {
  readonly code: number;
  readonly status: number;
}

interface RowName {
  /** `ledger.assetNotFound`, `common.invalid`: what a failure calls the row. */
  readonly label: string;
  /** The `data.reason` its errors carry: null for the rows of a catalogue without a name (the shared ones). */
  readonly reason: string | null;
}

let names: Map<RefusalRow, RowName> | null = null;

/** Every catalogue row by identity → its name and reason, built once. */
function rowNames(): Map<RefusalRow, RowName> {
  if (names) return names;
  names = new Map();
  for (const [catalogueName, catalogue] of Object.entries(allErrorCatalogues())) {
    const prefix = (catalogue as { reasonPrefix?: string | null }).reasonPrefix ?? null;
    for (const [row, spec] of Object.entries(catalogue.rows)) {
      names.set(spec, { label: `${catalogueName}.${row}`, reason: prefix === null ? null : `${prefix}.${row}` });
    }
  }
  for (const [row, spec] of Object.entries(signInErrors.rows)) names.set(spec, { label: `signIn.${row}`, reason: null });
  return names;
}

function detail(data: unknown, key: string): unknown {
  return data !== null && typeof data === 'object' ? (data as Record<string, unknown>)[key] : undefined;
}

/**
 * Asserts that `answer` is the refusal of catalogue row `row`: its envelope code and HTTP status,
 * and its `data.reason` (`ledger.assetNotFound`; none for the shared rows of `commonErrors`, which
 * carry no reason). `field` is the blamed input as the caller sees it (`params.amount`); `label`
 * starts the failure message (the case of a loop).
 */
export function expectRefusal(answer: RefusalAnswer, row: RefusalRow, options: { field?: string; label?: string } = {}): void {
  const name = rowNames().get(row);
  if (!name) throw new Error(`expectRefusal: the row {code ${row.code}, status ${row.status}} is in no catalogue of allErrorCatalogues().`);
  const expected: Record<string, unknown> = { code: row.code, status: row.status, reason: name.reason ?? undefined };
  const actual: Record<string, unknown> = { code: answer.code, status: answer.status, reason: detail(answer.data, 'reason') };
  if (options.field !== undefined) {
    expected.field = options.field;
    actual.field = detail(answer.data, 'field');
  }
  const wanted = name.reason ?? `${name.label} (no reason)`;
  const lead = options.label === undefined ? '' : `${options.label}: `;
  expect(actual, `${lead}expected the refusal ${wanted} (${row.status} ${row.code}); got ${answer.status} ${answer.code} "${answer.message}"`).toEqual(expected);
}
