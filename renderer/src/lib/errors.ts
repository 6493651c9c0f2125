import { useTranslation } from 'react-i18next';
import { ApiCallError } from '../api/client';

const KNOWN = new Set([0, 400, 401, 403, 404, 409, 413, 415, 429, 500, 502, 503, 1001, 1002, 1003, 1004, 2001, 2002, 2003, 3001, 3002, 3003, 4001, 4002, 4003, 5001, 5002, 5003]);

/**
 * The words for an API error: in English the server's own plain message (the most specific);
 * in other languages the translated meaning of the code, followed by the server's detail.
 */
export function useErrorText(): (error: unknown) => string {
  const { t, i18n } = useTranslation();
  return (error: unknown) => {
    if (!(error instanceof ApiCallError)) return t('errors.unexpected');
    if (error.code === 0) return t('errors.c0');
    if (i18n.language === 'en') return error.message;
    const key = KNOWN.has(error.code) ? (`errors.c${error.code}` as const) : 'errors.unexpected';
    return `${t(key as 'errors.unexpected')}（${error.message}）`;
  };
}

/** The error's message when it concerns `field` (params.<field>), else null. */
export function fieldError(error: ApiCallError | null, field: string, text: (e: unknown) => string): string | null {
  if (!error || error.field !== field) return null;
  return text(error);
}
