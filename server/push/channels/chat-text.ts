import MarkdownIt from 'markdown-it';

/**
 * A push's Markdown desp in the small markups chat services take (Telegram's HTML subset, Slack's
 * mrkdwn): parsed by markdown-it (raw HTML off, so it stays text) and written out token by token.
 * Everything that is not markup is escaped, so a push can never smuggle in a tag, a mention or a
 * link the sender did not write as a Markdown link. Lists become bullet lines, headings bold
 * lines, tables rows of cells; links keep only http(s) and mailto targets.
 */

const markdown = new MarkdownIt({ html: false, linkify: true, breaks: true, typographer: false });

type Token = ReturnType<typeof markdown.parse>[number];

export interface ChatDialect {
  escape(text: string): string;
  bold(inner: string): string;
  italic(inner: string): string;
  strike(inner: string): string;
  code(text: string): string;
  pre(text: string): string;
  /** A link with its (already written) text; href is an http(s)/mailto URL. */
  link(href: string, inner: string): string;
  quote(inner: string): string;
  /** Link text cannot carry formatting (Slack): bold, italic and strike inside a link are written plain. */
  plainLinkText?: boolean;
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Telegram's `parse_mode: HTML`: only b, i, s, code, pre, a and blockquote (Telegram refuses any other tag). */
export const telegramHtml: ChatDialect = {
  escape: escapeHtml,
  bold: (inner) => (inner ? `<b>${inner}</b>` : ''),
  italic: (inner) => (inner ? `<i>${inner}</i>` : ''),
  strike: (inner) => (inner ? `<s>${inner}</s>` : ''),
  code: (text) => `<code>${escapeHtml(text)}</code>`,
  pre: (text) => `<pre>${escapeHtml(text)}</pre>`,
  link: (href, inner) => `<a href="${escapeHtml(href).replace(/"/g, '&quot;')}">${inner || escapeHtml(href)}</a>`,
  quote: (inner) => `<blockquote>${inner}</blockquote>`,
};

/** Slack's mrkdwn: *bold*, _italic_, ~strike~, `code`, ```pre```, <url|text>, "> " quotes; & < > escaped. */
export const slackMrkdwn: ChatDialect = {
  escape: escapeHtml,
  bold: (inner) => (inner.trim() ? `*${inner}*` : inner),
  italic: (inner) => (inner.trim() ? `_${inner}_` : inner),
  strike: (inner) => (inner.trim() ? `~${inner}~` : inner),
  code: (text) => '`' + escapeHtml(text.replace(/`/g, 'ˋ')) + '`',
  pre: (text) => '```\n' + escapeHtml(text.replace(/```/g, 'ˋˋˋ')) + '```',
  // Slack's link text ends at the first '|' or '>' ('>' is escaped already).
  link: (href, inner) => {
    const text = inner.replace(/\|/g, '¦');
    const url = escapeHtml(href.replace(/[|<>]/g, encodeURIComponent));
    return text ? `<${url}|${text}>` : `<${url}>`;
  },
  quote: (inner) =>
    inner
      .split('\n')
      .map((line) => `> ${line}`)
      .join('\n'),
  plainLinkText: true,
};

function safeHref(value: string | number | null): string | null {
  const href = value === null ? '' : String(value);
  if (!href) return null;
  return /^(https?:\/\/|mailto:)/i.test(href) ? href : null;
}

/** Marks whose inner text is collected and then wrapped (inline formatting, links, quotes). */
interface Frame {
  kind: 'strong' | 'em' | 's' | 'link' | 'quote' | 'root';
  href?: string | null;
  out: string;
}

/** Whether cutting `text` at `end` (inside it) would split a surrogate pair: the code unit before the cut is a high surrogate. */
export function splitsSurrogatePair(text: string, end: number): boolean {
  if (end <= 0 || end >= text.length) return false;
  const unit = text.charCodeAt(end - 1);
  return unit >= 0xd800 && unit <= 0xdbff;
}

/** The text without its trailing newlines (a loop: an anchored regex would rescan the whole text each block). */
function trimNewlines(text: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === '\n') end--;
  return end === text.length ? text : text.slice(0, end);
}

class Writer {
  private readonly root: Frame = { kind: 'root', out: '' };
  /** The frames open inside the root, innermost last. */
  private readonly stack: Frame[] = [];
  constructor(private readonly dialect: ChatDialect) {}

  private get top(): Frame {
    return this.stack.at(-1) ?? this.root;
  }
  write(text: string): void {
    this.top.out += text;
  }
  /** Ends the current block: a blank line before the next one. */
  block(): void {
    this.top.out = trimNewlines(this.top.out) + '\n\n';
  }
  /** Ends a table row (drops the last cell's separator). */
  row(): void {
    const out = this.top.out;
    this.top.out = (out.endsWith(' | ') ? out.slice(0, -3) : out) + '\n';
  }
  line(): void {
    if (this.top.out && !this.top.out.endsWith('\n')) this.top.out += '\n';
  }
  open(kind: Frame['kind'], href?: string | null): void {
    this.stack.push({ kind, href, out: '' });
  }
  close(kind: Frame['kind']): void {
    // A frame closes its own kind; markdown-it always nests them properly.
    const frame = this.stack.at(-1);
    if (frame?.kind !== kind) return;
    this.stack.pop();
    const d = this.dialect;
    if (d.plainLinkText && kind !== 'link' && kind !== 'quote' && this.stack.some((f) => f.kind === 'link')) {
      this.write(frame.out);
      return;
    }
    switch (kind) {
      case 'strong': {
        this.write(d.bold(frame.out));
        return;
      }
      case 'em': {
        this.write(d.italic(frame.out));
        return;
      }
      case 's': {
        this.write(d.strike(frame.out));
        return;
      }
      case 'link': {
        this.write(frame.href ? d.link(frame.href, frame.out) : frame.out);
        return;
      }
      case 'quote':
        this.write(d.quote(trimNewlines(frame.out)));
        {
          this.block();
          return;
        }
      default:
        return;
    }
  }
  result(): string {
    while (this.stack.length > 0) this.close(this.top.kind);
    return this.root.out.replace(/\n{3,}/g, '\n\n').trim();
  }
}

function inline(children: Token[], w: Writer, d: ChatDialect): void {
  for (const t of children) {
    switch (t.type) {
      case 'text':
        w.write(d.escape(t.content));
        break;
      case 'softbreak':
      case 'hardbreak':
        w.write('\n');
        break;
      case 'strong_open':
        w.open('strong');
        break;
      case 'strong_close':
        w.close('strong');
        break;
      case 'em_open':
        w.open('em');
        break;
      case 'em_close':
        w.close('em');
        break;
      case 's_open':
        w.open('s');
        break;
      case 's_close':
        w.close('s');
        break;
      case 'code_inline':
        w.write(d.code(t.content));
        break;
      case 'link_open':
        w.open('link', safeHref(t.attrGet('href')));
        break;
      case 'link_close':
        w.close('link');
        break;
      case 'image': {
        const href = safeHref(t.attrGet('src'));
        const alt = d.escape(t.content || 'image');
        w.write(href ? d.link(href, alt) : alt);
        break;
      }
      default:
        if (t.content) w.write(d.escape(t.content));
    }
  }
}

/** The Markdown text in a chat dialect ('' for none). */
export function renderChatText(source: string, dialect: ChatDialect): string {
  const w = new Writer(dialect);
  const lists: Array<{ ordered: boolean; n: number }> = [];
  for (const t of markdown.parse(source, {})) {
    switch (t.type) {
      case 'inline':
        inline(t.children ?? [], w, dialect);
        break;
      case 'paragraph_close':
        if (t.hidden) w.line();
        else w.block();
        break;
      case 'heading_open':
        w.open('strong');
        break;
      case 'heading_close':
        w.close('strong');
        w.block();
        break;
      case 'bullet_list_open':
      case 'ordered_list_open':
        w.line();
        lists.push({ ordered: t.type === 'ordered_list_open', n: Number(t.attrGet('start') ?? 1) });
        break;
      case 'bullet_list_close':
      case 'ordered_list_close':
        lists.pop();
        if (lists.length === 0) w.block();
        break;
      case 'list_item_open': {
        const list = lists.at(-1);
        w.line();
        w.write('  '.repeat(Math.max(0, lists.length - 1)) + (list?.ordered ? `${list.n++}. ` : '• '));
        break;
      }
      case 'list_item_close':
        w.line();
        break;
      case 'blockquote_open':
        w.open('quote');
        break;
      case 'blockquote_close':
        w.close('quote');
        break;
      case 'code_block':
      case 'fence':
        w.write(dialect.pre(t.content.replace(/\n$/, '')));
        w.block();
        break;
      case 'hr':
        w.write('──────');
        w.block();
        break;
      case 'th_close':
      case 'td_close':
        w.write(' | ');
        break;
      case 'tr_close':
        w.row();
        break;
      case 'table_close':
        w.block();
        break;
      default:
        break;
    }
  }
  return w.result();
}

/**
 * The longest start of `source` whose rendering (with `…` where it was cut) fits `max` characters.
 * Cutting the Markdown before rendering keeps every tag closed; a cut mark (`**bo`) stays text.
 */
export function fitChatText(source: string, max: number, render: (markdown: string) => string): { text: string; cut: boolean } {
  const whole = render(source);
  if (whole.length <= max) return { text: whole, cut: false };
  let low = 0;
  // Rendering rarely shrinks text much (markup marks, escapes): start the search at a few times the limit.
  let high = source.length > max * 4 && render(source.slice(0, max * 4)).length > max ? max * 4 : source.length;
  let best = '';
  while (low <= high) {
    const mid = (low + high) >> 1;
    let end = mid;
    // Never split a surrogate pair.
    if (splitsSurrogatePair(source, end)) end--;
    const candidate = render(source.slice(0, end).trimEnd() + '…');
    if (candidate.length <= max) {
      best = candidate;
      low = mid + 1;
    } else high = mid - 1;
  }
  return { text: best, cut: true };
}

/** Plain text cut to `max` characters with `…` (titles, headers). */
export function cutText(text: string, max: number): string {
  const chars = Array.from(text);
  if (text.length <= max) return text;
  let out = '';
  for (const ch of chars) {
    if (out.length + ch.length > max - 1) break;
    out += ch;
  }
  return out + '…';
}
