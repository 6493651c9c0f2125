import type { Response } from 'express';
import type { DomainError } from '../lib/errors';

/** The answer of /api and of the JSON routes: `{code, message, data}` (a contract: docs/api.md). */
export interface Envelope<T = unknown> {
  code: number;
  message: string;
  data: T | null;
}

export function envelope<T>(code: number, message: string, data: T | null): Envelope<T> {
  return { code, message, data };
}

/** The envelope of an error; `field` (domain terms) is shown under its wire name by `wireField`. */
export function errorEnvelope(error: DomainError, wireField: (field: string) => string): Envelope<Record<string, unknown>> {
  const details = error.details ? { ...error.details } : null;
  if (details && typeof details.field === 'string') details.field = wireField(details.field);
  return envelope(error.code, error.message, details);
}

/**
 * Sends an envelope with its status, never cached. The JSON type is set even when a route had set
 * another (a file answer that failed before its bytes left).
 */
export function sendEnvelope(res: Response, status: number, body: Envelope, headers: Readonly<Record<string, string>> = {}): void {
  res.set(headers).set({ 'Cache-Control': 'no-store', 'Content-Type': 'application/json; charset=utf-8' }).status(status).json(body);
}
