import { pushErrors } from './errors';
import type { DeliveryResult } from './schema';

/** The answer of a /send request: ServerChan-compatible on success, `{code, message, data}` always. */
export interface SendAnswer {
  status: number;
  body: { code: number; message: string; data: unknown };
  headers: Record<string, string>;
}

export interface SendData {
  pushId: string;
  total: number;
  success: number;
  failed: number;
  results: DeliveryResult[];
  url?: string;
}

export const answer = (status: number, code: number, message: string, data: unknown = null, headers: Record<string, string> = {}): SendAnswer => ({
  status,
  body: { code, message, data },
  headers,
});

/** Reads one text field of a /send request: strings and numbers; arrays (repeated fields) are refused. */
export function textField(input: Record<string, unknown>, name: string): string | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) throw pushErrors.fieldRepeated(name).at(name);
  throw pushErrors.fieldNotText(name).at(name);
}

/** The plain-words summary of a push: the answer's message and the history's `summary`. */
export function summarize(results: DeliveryResult[], success: number, failed: number): string {
  const total = results.length;
  if (failed === 0) return total === 1 ? 'Delivered.' : `Delivered to all ${total} recipients.`;
  const failures = results.filter((r) => !r.ok);
  const systemic = failures.find((r) => r.class === 'systemic' || r.class === 'token');
  const reason = (systemic ?? failures[0]).errmsg ?? 'unknown reason';
  if (success === 0) {
    return total === 1
      ? `Not delivered: ${reason}`
      : `Nothing was delivered to the ${total} recipients: ${reason}${failures.some((f) => f.errmsg !== reason) ? ' (details per recipient in data.results)' : ''}`;
  }
  return `Delivered to ${success} of ${total} recipients; ${failed} failed: ${reason}${failed > 1 ? ' (details per recipient in data.results)' : ''}`;
}
