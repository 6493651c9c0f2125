import { useTranslation } from 'react-i18next';
import type { i18n as I18n } from 'i18next';
import { ApiCallError } from '../api/client';

/**
 * The words for an error the UI meets (docs/ui.md, "Error messages"), in the UI's language and never
 * the server's developer text (no `params.x`, no pattern, no action name):
 * - a params failure (the server's 400, or the same refusal made before sending) by its rule: the
 *   field's label and the rule in words ("Email: enter an address like name@example.com");
 * - a catalogue error by its reason (`errors.reason.<catalogue>.<row>`, interpolating its args);
 * - anything else by the meaning of its code — in English the server's own sentence when it is
 *   plain words (the most specific), never when it names params, actions or patterns.
 */
const KNOWN = new Set([0, 400, 401, 403, 404, 409, 413, 415, 429, 500, 502, 503, 1001, 1002, 1003, 1004, 2001, 2002, 2003, 3001, 3002, 3003, 4001, 4002, 4003, 5001, 5002, 5003]);

/** Text written for developers: a param (`params.x`, `fromAsset`), an action (`file.upload`), a pattern or a schema phrase. */
const DEVELOPER_TEXT = /params\.|\b[a-z]+\.[a-z]+[A-Za-z]*\b|\b[a-z]+[A-Z][A-Za-z]*\b|[\^$]|\\p\{|must match|must NOT|settings\.json|: true\b/;

type Translate = (key: string, options?: Record<string, unknown>) => string;

function translator(i18n: I18n): { t: Translate; has: (key: string) => boolean } {
  const t = i18n.t.bind(i18n) as unknown as Translate;
  return { t, has: (key) => i18n.exists(key) };
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A params failure in words: the label of the top-level param it concerns and its rule. */
function ruleText({ t, has }: ReturnType<typeof translator>, error: ApiCallError): string | null {
  const rule = error.rule;
  if (!rule) return null;
  const path = error.path ?? '';
  const inList = /^[^.[]+\[\d+\]$/.test(path);
  const limitKey = (k: string) => (k === 'minLength' && rule.limit === 1 ? 'minLength1' : k);
  let message: string;
  if (rule.keyword === 'pattern') message = t(has(`errors.hint.${rule.hint ?? ''}`) ? `errors.hint.${rule.hint ?? ''}` : 'errors.hint.text');
  else if (rule.keyword === 'format') message = t(has(`errors.format.${rule.format ?? ''}`) ? `errors.format.${rule.format ?? ''}` : 'errors.rule.format');
  else if (inList && has(`errors.ruleItem.${limitKey(rule.keyword)}`)) message = t(`errors.ruleItem.${limitKey(rule.keyword)}`, { limit: rule.limit });
  else if (inList) message = t('errors.ruleItem.other');
  else message = t(has(`errors.rule.${limitKey(rule.keyword)}`) ? `errors.rule.${limitKey(rule.keyword)}` : 'errors.rule.other', { limit: rule.limit });
  const field = error.field;
  return field && has(`errors.field.${field}`) ? t('errors.withField', { label: t(`errors.field.${field}`), message }) : capitalised(message);
}

/** A catalogue error in words, its arguments interpolated ({{0}}, {{1}}, … lists joined). */
function reasonText({ t, has }: ReturnType<typeof translator>, error: ApiCallError): string | null {
  const reason = error.reason;
  if (!reason || !has(`errors.reason.${reason.name}`)) return null;
  const separator = t('errors.listSeparator');
  const args = Object.fromEntries(reason.args.map((arg, i) => [String(i), Array.isArray(arg) ? arg.join(separator) : arg]));
  return t(`errors.reason.${reason.name}`, args);
}

/** The words for any error, in the current language. */
export function errorText(i18n: I18n, error: unknown): string {
  const words = translator(i18n);
  if (!(error instanceof ApiCallError)) return words.t('errors.unexpected');
  if (error.code === 0) return words.t('errors.c0');
  const specific = ruleText(words, error) ?? reasonText(words, error);
  if (specific) return specific;
  if (i18n.language === 'en' && error.message && !DEVELOPER_TEXT.test(error.message)) return error.message;
  return words.t(KNOWN.has(error.code) ? `errors.c${error.code}` : 'errors.unexpected');
}

export function useErrorText(): (error: unknown) => string {
  const { i18n } = useTranslation();
  return (error: unknown) => errorText(i18n, error);
}

/** Why a CSV row cannot be imported (accounting.importCsv `invalid[].problems`), in words. */
export function useImportProblemText(): (problem: { kind: string; args: readonly string[] }) => string {
  const { i18n } = useTranslation();
  const { t } = translator(i18n);
  return (problem) => t(`errors.importRow.${problem.kind}`, Object.fromEntries(problem.args.map((arg, i) => [String(i), arg])));
}
