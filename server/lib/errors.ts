/**
 * Errors a caller can act on, in the domain's own terms. Each domain keeps one catalogue
 * (`<domain>/errors.ts`): a row per error with its envelope code, its HTTP status and its message
 * template. Services throw `catalogue.row(args)`; the /api router and the route wrapper turn a
 * DomainError into the envelope `{code, message, data}` with its status (docs/api.md), and show a
 * field named in domain terms (`amount`) under its wire name (`params.amount`).
 */
export class DomainError extends Error {
  constructor(
    /** The envelope code: an HTTP-like code (400, 404, …) or a business code (1001, 2001, …). */
    readonly code: number,
    /** The HTTP status that accompanies it. */
    readonly status: number,
    message: string,
    /** Extra facts for the caller (`data` of the envelope); `field` names the offending input. */
    readonly details: Readonly<Record<string, unknown>> | null = null,
    /** Extra response headers, e.g. Retry-After for 429. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }

  /** The offending input in domain terms ('amount', 'goal.targetAmount'), when one is to blame. */
  get field(): string | undefined {
    const field = this.details?.field;
    return typeof field === 'string' ? field : undefined;
  }

  /** The same error with more details (the originals win nothing: later keys replace earlier ones). */
  with(details: Record<string, unknown>): DomainError {
    return new DomainError(this.code, this.status, this.message, { ...this.details, ...details }, this.headers);
  }

  /** The same error blaming one input, named in domain terms. */
  at(field: string): DomainError {
    return this.with({ field });
  }

  /** The same error with extra response headers. */
  withHeaders(headers: Record<string, string>): DomainError {
    return new DomainError(this.code, this.status, this.message, this.details, { ...this.headers, ...headers });
  }
}

/** One row of an error catalogue: code, HTTP status and message template. */
export interface ErrorRow<A extends readonly unknown[] = never[]> {
  readonly code: number;
  readonly status: number;
  readonly message: (...args: A) => string;
}

/**
 * A catalogue: one factory per row (`errors.assetNotFound(id)`), the rows for docs/api.md, and the
 * name its reasons start with (`ledger` → `ledger.assetNotFound`), when it has one.
 */
export type ErrorCatalogue<R extends Record<string, ErrorRow>> = {
  readonly [K in keyof R]: (...args: Parameters<R[K]['message']>) => DomainError;
} & { readonly rows: R; readonly reasonPrefix: string | null };

/** A message argument as the envelope can carry it: JSON scalars and lists of them. */
export type ReasonArg = string | number | boolean | null | readonly (string | number | boolean | null)[];

function reasonArg(value: unknown): ReasonArg {
  const scalar = (v: unknown) => (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : null);
  return Array.isArray(value) ? value.map(scalar) : scalar(value);
}

/**
 * Builds a catalogue from its rows. With a name (the domain's), every error it makes carries in its
 * details a stable `reason` (`<name>.<row>`) and `args`, the row's message arguments in order, so a
 * client can say the same in its own words and language (docs/api.md, "Reasons"). The arguments are
 * the ones the English message shows already (booleans choose its wording), never a secret.
 */
export function errorCatalogue<R extends Record<string, ErrorRow>>(rows: R, name: string | null = null): ErrorCatalogue<R> {
  const factories: Record<string, unknown> = { rows, reasonPrefix: name };
  for (const [row, spec] of Object.entries(rows)) {
    // The typed factory (ErrorCatalogue) takes exactly the row's message arguments and hands them on.
    const typed = spec as ErrorRow<unknown[]>;
    factories[row] = (...args: unknown[]) =>
      new DomainError(typed.code, typed.status, typed.message(...args), name === null ? null : { reason: `${name}.${row}`, args: args.map(reasonArg) });
  }
  return factories as ErrorCatalogue<R>;
}

const say = (message: string) => message;

/**
 * The errors every domain shares. Their code is their HTTP status; the message is the domain's own
 * sentence (`commonErrors.invalid('The end date is before the start date.').at('endDate')`).
 */
export const commonErrors = errorCatalogue({
  invalid: { code: 400, status: 400, message: say },
  unauthorized: { code: 401, status: 401, message: say },
  forbidden: { code: 403, status: 403, message: say },
  notFound: { code: 404, status: 404, message: say },
  conflict: { code: 409, status: 409, message: say },
  gone: { code: 410, status: 410, message: say },
  tooLarge: { code: 413, status: 413, message: say },
  rateLimited: { code: 429, status: 429, message: say },
  internal: { code: 500, status: 500, message: say },
  badGateway: { code: 502, status: 502, message: say },
  unavailable: { code: 503, status: 503, message: say },
});
