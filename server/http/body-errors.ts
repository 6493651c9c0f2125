import { commonErrors, type DomainError } from '../lib/errors';

/**
 * The 400 for a request body that could not be read (body-parser's error types), for /api and the
 * other routes alike. `limit` is the size limit as a person reads it ('1 MiB').
 */
export function unreadableBody(error: unknown, limit: string): DomainError {
  const err = error as { type?: string; message?: string };
  if (err.type === 'multipart.parse.failed') return commonErrors.invalid('Malformed multipart/form-data body.');
  if (err.type === 'entity.too.large') return commonErrors.invalid(`The request body is larger than ${limit}.`);
  if (err.type === 'json.too.deep') return commonErrors.invalid(`Invalid body: ${String(err.message)}.`);
  if (err.type === 'entity.parse.failed') return commonErrors.invalid(`Malformed JSON body: ${String(err.message).slice(0, 160)}`);
  if (err.type === 'encoding.unsupported' || err.type === 'charset.unsupported') return commonErrors.invalid('Unsupported body encoding; send UTF-8.');
  return commonErrors.invalid('The request body could not be read.');
}
