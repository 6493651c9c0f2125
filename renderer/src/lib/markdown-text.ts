/**
 * The words of a Markdown text without its marks, for one-line previews (the push history): `**3
 * jobs** OK` → `3 jobs OK`, `[the log](https://…)` → `the log`, headings, quotes, list bullets,
 * code fences and table bars dropped, white space collapsed. Shown as text, never as HTML; the
 * whole message is rendered by the server (push.getMessage `html`).
 */
const ESCAPED = 0xe000; // escaped marks wait in the private use area while the others are taken out

export function markdownText(markdown: string): string {
  return markdown
    .replace(/\\([\\`*_{}[\]()#+\-.!|>~])/g, (_, mark: string) => String.fromCharCode(ESCAPED + mark.charCodeAt(0)))
    .replace(/```[^\n]*\n?/g, ' ') // code fences
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1') // images: their alt text
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1') // links: their text
    .replace(/<(https?:[^>\s]+)>/g, '$1') // autolinks
    .replace(/^\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+|\d+[.)]\s+)/gm, '') // headings, quotes, list items
    .replace(/^\s*(\|?\s*:?-{3,}:?\s*)+\|?\s*$/gm, ' ') // table separator rows
    .replace(/\s*\|\s*/g, ' ') // table bars
    .replace(/(\*\*|~~|\*|`)(?=\S)([^\n]*?\S)\1/g, '$2') // emphasis, strike, inline code
    .replace(/(^|[^\p{L}\p{N}_])(__|_)(?=\S)([^\n]*?\S)\2(?![\p{L}\p{N}_])/gu, '$1$3') // _emphasis_, never inside a word (snake_case)
    .replace(/[\ue000-\ue0ff]/g, (mark) => String.fromCharCode(mark.charCodeAt(0) - ESCAPED)) // escaped marks, as written
    .replace(/\s+/g, ' ')
    .trim();
}
