import { DomainError, errorCatalogue } from '../lib/errors';
export { envelope, type Envelope } from '../http/envelope';

/**
 * The error codes of the /api envelope and their HTTP status (a contract: docs/api.md).
 * A handler throws `new ApiError(code, message)`; the framework turns it into the envelope.
 */
export const ErrorCode = {
  Ok: 200,
  Validation: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  Conflict: 409,
  Gone: 410,
  RateLimited: 429,
  Internal: 500,
  BadGateway: 502,
  Unavailable: 503,
  UserNotFound: 1001,
  InvalidCredentials: 1002,
  TokenExpired: 1003,
  AccountLocked: 1004,
  /** Same code as AccountLocked (the seed's "no permission"): a member called an owner's action, or the account is disabled. */
  NotPermitted: 1004,
  AssetNotFound: 2001,
  InsufficientBalance: 2002,
  InvalidAssetType: 2003,
  RecordNotFound: 3001,
  InvalidRecordType: 3002,
  InvalidAmount: 3003,
  GoalNotFound: 4001,
  GoalCompleted: 4002,
  InsufficientFunds: 4003,
  FileNotFound: 5001,
  FileTooLarge: 5002,
  InvalidFileType: 5003,
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

const STATUS_OF_BUSINESS_CODE: Record<number, number> = {
  1001: 404,
  1002: 401,
  1003: 401,
  1004: 403,
  2001: 404,
  2002: 409,
  2003: 400,
  3001: 404,
  3002: 400,
  3003: 400,
  4001: 404,
  4002: 409,
  4003: 409,
  5001: 404,
  5002: 413,
  5003: 415,
};

/** HTTP status that accompanies an envelope code (docs/api.md, the envelope). */
export function httpStatusOf(code: number): number {
  if (code >= 100 && code < 600) return code;
  return STATUS_OF_BUSINESS_CODE[code] ?? 500;
}

/** Names shown in docs/api.md next to each code. */
export const ERROR_NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(ErrorCode).map(([name, code]) => [code, name]),
);

export class ApiError extends DomainError {
  constructor(code: number, message: string, data: Record<string, unknown> | null = null, headers: Record<string, string> = {}) {
    super(code, httpStatusOf(code), message, data, headers);
    this.name = 'ApiError';
  }

  get data(): Record<string, unknown> | null {
    return this.details as Record<string, unknown> | null;
  }
}

export const badRequest = (message: string, data?: Record<string, unknown>) => new ApiError(ErrorCode.Validation, message, data ?? null);
export const notFound = (code: number, message: string) => new ApiError(code, message);
export const conflict = (message: string, data?: Record<string, unknown>) => new ApiError(ErrorCode.Conflict, message, data ?? null);

/** The errors of the /api wrapper itself: roles and a pending password change. */
export const apiErrors = errorCatalogue({
  mustChangePassword: { code: 403, status: 403, message: () => 'Choose a new password first (user.changePassword): your password was reset by the owner.' },
  ownerOnly: { code: 1004, status: 403, message: (action: string) => `Only the owner of this PennyPost can do this (${action}).` },
  adminOnly: { code: 1004, status: 403, message: (action: string) => `Only the owner of this PennyPost or an admin can do this (${action}); ask them.` },
});
