import { DomainError } from '../../lib/errors';
import { pushErrors } from '../errors';
import type { PageTokens } from '../keys';
import type { DeliveryResult } from '../schema';

/** The answer of a /send request: ServerChan-compatible on success, `{code, message, data}` always. */
export interface SendAnswer {
  status: number;
  body: { code: number; message: string; data: unknown };
  headers: Record<string, string>;
  /**
   * Not sent as such: the secret half of the message page's token (/m/{pushId}.{readKey}) when a push
   * was recorded or scheduled, for the answer forms that show it (ServerChan's `readkey`).
   */
  readKey?: string;
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

/** A refusal or failure from the error catalogues as the answer it stands for (anything else is rethrown). */
export function answerOfError(error: unknown): SendAnswer {
  if (error instanceof DomainError) return answer(error.status, error.code, error.message, error.details, { ...error.headers });
  throw error;
}

/** The answer with its push's `readKey`, when it names a push. */
export function withReadKey(result: SendAnswer, pages: PageTokens): SendAnswer {
  const data = result.body.data as { pushId?: unknown } | null;
  if (!data || typeof data.pushId !== 'string' || !data.pushId) return result;
  const token = pages.tokenOf(data.pushId);
  return { ...result, readKey: token.slice(token.indexOf('.') + 1) };
}

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
  const reason = (systemic ?? failures.at(0))?.errmsg ?? 'unknown reason';
  if (success === 0) {
    return total === 1
      ? `Not delivered: ${reason}`
      : `Nothing was delivered to the ${total} recipients: ${reason}${failures.some((f) => f.errmsg !== reason) ? ' (details per recipient in data.results)' : ''}`;
  }
  return `Delivered to ${success} of ${total} recipients; ${failed} failed: ${reason}${failed > 1 ? ' (details per recipient in data.results)' : ''}`;
}
