import { commonErrors } from '../../lib/errors';
import { renderChatText, splitsSurrogatePair, type ChatDialect } from './chat-text';

/**
 * WeChat template messages as WeChat shows them since 2023-05-04 (docs/push.md §3 "WeChat
 * template messages"): the `first` and `remark` fields are no longer shown, colours are ignored,
 * and a keyword shows at most 20 characters on one line. So a push's title and time go into
 * keywords that show, each value is one line cut to 20 characters with `…`, and the whole text is
 * on the message page the template links to.
 *
 * Which keywords a template has is read from the Official Account's template list (its `content`,
 * e.g. `告警内容：{{thing1.DATA}}\n时间：{{time2.DATA}}`) when an app is saved: a mapping to a key
 * the template lacks is refused, and the default mapping is made from the template's own keys.
 */

/** Keys WeChat no longer shows (2023-05-04). */
export const HIDDEN_KEYS: readonly string[] = ['first', 'remark'];

/** The most characters WeChat shows of one keyword. */
export const KEYWORD_MAX_CHARS = 20;

/** The push fields an app maps to template keys. */
export const TEMPLATE_PARTS = ['title', 'desp', 'time'] as const;
export type TemplatePart = (typeof TEMPLATE_PARTS)[number];
export type TemplateFields = Record<TemplatePart, string>;

/** One keyword of a template: its data key and the words written before it on its line. */
export interface TemplateKeyword {
  key: string;
  label: string;
}

/** One template of the account (GET /cgi-bin/template/get_all_private_template). */
export interface WechatTemplate {
  templateId: string;
  title: string;
  content: string;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\.DATA\s*\}\}/g;

/** The keywords of a template's content, in order, each once. */
export function templateKeywords(content: string): TemplateKeyword[] {
  const out: TemplateKeyword[] = [];
  const seen = new Set<string>();
  let lineStart = 0;
  for (const match of content.matchAll(PLACEHOLDER)) {
    const at = match.index;
    const newline = content.lastIndexOf('\n', at - 1);
    const from = Math.max(lineStart, newline + 1);
    const label = content
      .slice(from, at)
      .replace(/[:：\s]+$/u, '')
      .trim();
    lineStart = at + match[0].length;
    const key = match.at(1);
    if (key === undefined) throw new Error('templateKeywords: a placeholder matched without its keyword');
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ key, label });
  }
  return out;
}

/** Keyword types of WeChat's template library that take no free text (numbers, codes, amounts, dates…). */
const TYPED_KEY = /^(number|letter|symbol|character_string|amount|phone_number|car_number|phrase|const|date|time)\d*$/;
const TIME_KEY = /^(time|date)\d*$/;
const TIME_LABEL = /时间|日期|time|date/i;

const isTimeKeyword = (k: TemplateKeyword) => TIME_KEY.test(k.key) || TIME_LABEL.test(k.label);

/**
 * The default mapping for a template: the title into its first text keyword (else into any that
 * shows), the time into its first time keyword (by key or label), the desp into the next text
 * keyword — never into `first` or `remark`.
 * A part without a keyword left is '' (not sent; the message page has it).
 */
export function defaultTemplateFields(keywords: readonly TemplateKeyword[], keep: Partial<TemplateFields> = {}): TemplateFields {
  const shown = keywords.filter((k) => !HIDDEN_KEYS.includes(k.key));
  const used = new Set(Object.values(keep).filter(Boolean));
  const take = (accept: (k: TemplateKeyword) => boolean): string => {
    const found = shown.find((k) => !used.has(k.key) && accept(k));
    if (!found) return '';
    used.add(found.key);
    return found.key;
  };
  const text = (k: TemplateKeyword) => !TYPED_KEY.test(k.key) && !isTimeKeyword(k);
  // The title matters most: a text keyword, else any but a time, else any that shows.
  const title = keep.title ?? (take(text) || take((k) => !isTimeKeyword(k)) || take(() => true));
  const time = keep.time ?? take(isTimeKeyword);
  const desp = keep.desp ?? take(text);
  return { title, desp, time };
}

/** How a template shows in messages: its id and title. */
const named = (template: WechatTemplate) => `${template.templateId}${template.title ? ` ("${template.title}")` : ''}`;

/**
 * The template fields to store for an app: the given mapping checked against the template's
 * keywords (a key it lacks, or `first`/`remark`, is refused with a 400 naming the field), the
 * parts not given taken from `stored` when they still fit, else made by defaultTemplateFields.
 */
export function checkTemplateFields(
  templates: readonly WechatTemplate[],
  templateId: string,
  given: Partial<TemplateFields>,
  stored: Partial<TemplateFields> = {},
): TemplateFields {
  const template = templates.find((t) => t.templateId === templateId);
  if (!template) {
    throw commonErrors
      .invalid(
        `params.templateId: this Official Account has no template "${templateId}" (${templates.length} in its template list). ` +
          "Copy the template ID from the account's template list (Template messages → My templates).",
      )
      .at('templateId');
  }
  const keywords = templateKeywords(template.content);
  const keys = keywords.map((k) => k.key);
  const shown = keys.filter((key) => !HIDDEN_KEYS.includes(key));
  if (shown.length === 0) {
    throw commonErrors
      .invalid(`params.templateId: the template ${named(template)} has no keyword WeChat shows (it shows no first or remark field since 2023-05-04); pick another template`)
      .at('templateId');
  }
  const list = shown.join(', ');
  for (const part of TEMPLATE_PARTS) {
    const key = given[part];
    if (!key) continue;
    if (HIDDEN_KEYS.includes(key)) {
      throw commonErrors
        .invalid(
          `params.templateFields.${part}: WeChat has not shown a template's "${key}" field since 2023-05-04, so the ${part} would not show; ` +
            `map it to one of the keywords that show: ${list}`,
        )
        .at(`templateFields.${part}`);
    }
    if (!keys.includes(key)) {
      throw commonErrors.invalid(`params.templateFields.${part}: the template ${named(template)} has no field "${key}"; its keywords are ${list}`).at(`templateFields.${part}`);
    }
  }
  const keep: Partial<TemplateFields> = {};
  const taken = new Set<string>();
  for (const part of TEMPLATE_PARTS) {
    const key = given[part];
    if (key !== undefined) {
      keep[part] = key;
      if (key) taken.add(key);
    }
  }
  for (const part of TEMPLATE_PARTS) {
    const key = stored[part];
    if (keep[part] !== undefined || key === undefined) continue;
    if (key === '' || (shown.includes(key) && !taken.has(key))) {
      keep[part] = key;
      if (key) taken.add(key);
    }
  }
  return defaultTemplateFields(keywords, keep);
}

/** Markdown as plain words (marks dropped, a link as its text), for values that show no markup. */
const plainWords: ChatDialect = {
  escape: (text) => text,
  bold: (inner) => inner,
  italic: (inner) => inner,
  strike: (inner) => inner,
  code: (text) => text,
  pre: (text) => text,
  link: (href, inner) => inner || href,
  quote: (inner) => inner,
};

/** Markdown text as plain text ('' for none). */
export function plainText(markdown: string): string {
  return renderChatText(markdown, plainWords);
}

/** Characters of a string as WeChat counts them at most (code points). */
const charCount = (text: string): number => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Text cut to at most `max` characters on one line: white space and line breaks become single
 * spaces, and a cut ends with `…` (never inside a character, an emoji or its modifiers).
 */
export function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/gu, ' ').trim();
  if (charCount(line) <= max) return line;
  let out = '';
  let count = 0;
  for (const { segment } of graphemes.segment(line)) {
    const size = charCount(segment);
    if (count + size > max - 1) break;
    out += segment;
    count += size;
  }
  return out.trimEnd() + '…';
}

/** How much of a long desp to read for a keyword: enough for its 20 characters after the Markdown marks are dropped. */
const KEYWORD_SOURCE_CHARS = 2000;

/** A title or time as a template value: one line, at most 20 characters. */
export function keywordText(text: string): string {
  return oneLine(text, KEYWORD_MAX_CHARS);
}

/** A Markdown desp as a template value: plain words on one line, at most 20 characters. */
export function keywordMarkdown(markdown: string): string {
  let end = Math.min(markdown.length, KEYWORD_SOURCE_CHARS);
  // Never split a surrogate pair.
  if (splitsSurrogatePair(markdown, end)) end--;
  return oneLine(plainText(markdown.slice(0, end)), KEYWORD_MAX_CHARS);
}
