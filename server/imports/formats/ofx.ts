import { decodeLabelledText, decodeXmlEntities, localDateTime, parseAmount, withoutPayee } from './shared';
import { StatementError, type InvalidLine, type ParseOptions, type ParsedStatement, type StatementLine, type StatementParser, type StatementSniffer } from './types';

/**
 * OFX and QFX statements: OFX 1.x (SGML: a `KEY:VALUE` header, leaf elements whose end tags are
 * optional) and OFX 2.x (XML: `<?OFX OFXHEADER="200" …?>`). QFX is OFX with Intuit's extra
 * elements (`INTU.BID`…), which are read past.
 *
 * Both versions are read by one tolerant reader of our own rather than an XML parser: the tree
 * we need is the same, and OFX 2 files in the wild are often not well-formed XML (an SGML body
 * under an XML header, a missing `</STMTTRN>`). What the reader accepts:
 * - a leaf is a start tag followed by text; its end tag may follow or not;
 * - a start tag followed by another tag opens an aggregate, closed by its end tag, by the end tag
 *   of an outer aggregate, or by a start tag of its own name (OFX never nests an aggregate in
 *   one of the same name, so a second `<STMTTRN>` ends an unclosed first one);
 * - an empty leaf (`<MEMO>` with no text) also looks like an aggregate opening: when such an
 *   element closes without its own end tag and is not a known aggregate, what it swallowed is
 *   given back to its parent;
 * - a file whose `<OFX>` is never closed is cut off: 'truncated' (a partial download must not
 *   import silently short).
 *
 * Every bank (`STMTRS`) and credit card (`CCSTMTRS`) statement of the file is read, and of an
 * investment statement (`INVSTMTRS`) its cash lines (`INVBANKTRAN/STMTTRN`: what a brokerage's cash
 * account paid and received, as a bank statement's lines); trades and positions are not (a file
 * holding only those is 'notThisFormat'). Per `STMTTRN`:
 * - date: `DTUSER` (when the person paid, e.g. swiped the card) when present and valid, else
 *   `DTPOSTED` (when the bank booked it), since a record is dated when it happened;
 * - dates: `YYYYMMDD[HHMMSS[.XXX]][offset:zone]`; with a zone bracket (`[-5:EST]`, `[+8]`,
 *   `[0:GMT]`) the instant it names, without one the wall clock in `options.timeZone` (the spec
 *   says GMT then, but banks write their local day: reading it as GMT moves dates a day back);
 * - amount: `TRNAMT`, signed from the account holder's side (negative: expense, positive:
 *   income); `.` or `,` is the decimal mark (spec 3.2.9.1: no digit grouping); zero is read (the
 *   pipeline skips it: nothing moved);
 * - currency: `CURRENCY/CURSYM` (the amount is in that currency), else `CURDEF`. With
 *   `ORIGCURRENCY` the amount is already converted into `CURDEF`, so `CURDEF` stays;
 * - payee: `NAME`, else `PAYEE/NAME`; description: `MEMO` without the payee repeated, and
 *   'Check 123' for a `CHECKNUM` the other fields do not already show;
 * - externalId: `FITID`; sourceCategory: `TRNTYPE`; status: done (OFX lists booked lines).
 * `line` is the transaction's ordinal in the file. With several accounts in the file, `account`
 * joins their ids and each line's `method` names its account. A credit card statement's lines
 * carry the card's last 4 digits (`CCACCTFROM/ACCTID`) as `cardTail`.
 */

interface OfxNode {
  name: string;
  /** A leaf's text, entity-decoded and trimmed ('' for an aggregate). */
  text: string;
  children: OfxNode[];
}

/**
 * A node while the tree is being read: its children as a linked list, so that an empty leaf can
 * give what it swallowed back to its parent in one step (a list of arrays moved up one level at a
 * time made nested empty leaves quadratic: 512 KB of them held the server for 47 s).
 */
interface OpenNode extends OfxNode {
  first: OpenNode | null;
  last: OpenNode | null;
  next: OpenNode | null;
}

/** Aggregates of the OFX banking and credit card messages (spec 1.6/2.1.1, chapters 2, 3, 11). */
const AGGREGATES = new Set([
  'OFX',
  'STATUS',
  'FI',
  'BANKTRANLIST',
  'BANKTRANLISTP',
  'STMTTRN',
  'STMTTRNP',
  'PAYEE',
  'CURRENCY',
  'ORIGCURRENCY',
  'LEDGERBAL',
  'AVAILBAL',
  'BALLIST',
  'BAL',
  'IMAGEDATA',
  'MSGSETLIST',
]);
const AGGREGATE_SUFFIX = /(?:MSGSRSV\d|MSGSRQV\d|TRNRS|TRNRQ|RS|RQ|ACCTFROM|ACCTTO|ACCTINFO)$/;

function isAggregate(name: string): boolean {
  return AGGREGATES.has(name) || AGGREGATE_SUFFIX.test(name);
}

const TAG_NAME = /^[A-Za-z][\w.:-]*$/;
/** What trim() and /\s/ count as space, in the ASCII range tags are written in (and the no-break space). */
const isSpace = (code: number) => code === 32 || (code >= 9 && code <= 13) || code === 160;
/** Shared by every node without children (not changed: a node with children gets its own array). */
const NO_CHILDREN: OfxNode[] = [];

/**
 * The element tree of an OFX body (SGML or XML), and whether `</OFX>` was seen. Linear in the
 * length of the body, however the tags nest: every step is constant work per tag (the open
 * elements are indexed by name, children are linked lists), and nothing recurses.
 */
export function readOfxTree(body: string): { root: OfxNode; complete: boolean } {
  const nodes: OpenNode[] = [];
  const make = (name: string): OpenNode => {
    const node: OpenNode = { name, text: '', children: NO_CHILDREN, first: null, last: null, next: null };
    nodes.push(node);
    return node;
  };
  const root = make('#document');
  const stack: OpenNode[] = [root];
  /** Where each name is open innermost on the stack; `sameBelow[i]`: where stack[i]'s name is open below it (-1: nowhere). */
  const openAt = new Map<string, number>();
  const sameBelow: number[] = [-1];
  let justOpened: OpenNode | null = null;
  let lastLeaf: OpenNode | null = null;
  let complete = false;

  const append = (parent: OpenNode, node: OpenNode) => {
    if (parent.last) parent.last.next = node;
    else parent.first = node;
    parent.last = node;
  };
  const push = (node: OpenNode) => {
    sameBelow.push(openAt.get(node.name) ?? -1);
    openAt.set(node.name, stack.length);
    stack.push(node);
  };
  /** The innermost open node: the root (stack[0]) is never closed, so there always is one. */
  const top = (): OpenNode => {
    const node = stack.at(-1);
    if (node === undefined) throw new Error('readOfxTree: the stack of open elements is empty (the root was closed)');
    return node;
  };
  const pop = (): OpenNode => {
    const node = stack.pop() as OpenNode;
    const below = sameBelow.pop() ?? -1;
    if (below === -1) openAt.delete(node.name);
    else openAt.set(node.name, below);
    return node;
  };
  /** Closes stack[index] and everything above it; `explicit` when its own end tag closed it. */
  const closeFrom = (index: number, explicit: boolean) => {
    while (stack.length > index) {
      const node = pop();
      const own = explicit && stack.length === index;
      if (!own && node.text === '' && node.first !== null && !isAggregate(node.name)) {
        // An empty leaf that swallowed its following siblings: give them back. The node is its
        // parent's last child (everything made since it opened went below it), so its children
        // simply follow it in the parent's list.
        const parent = top();
        node.next = node.first;
        parent.last = node.last;
        node.first = null;
        node.last = null;
      }
    }
  };
  const indexOf = (name: string) => openAt.get(name) ?? -1;

  const length = body.length;
  let i = 0;
  while (i < length) {
    const lt = body.indexOf('<', i);
    const stop = lt === -1 ? length : lt;
    if (stop > i && justOpened) {
      const text = body.slice(i, stop).trim();
      if (text !== '') {
        justOpened.text = decodeXmlEntities(text);
        pop();
        lastLeaf = justOpened;
        justOpened = null;
      }
    }
    if (lt === -1) break;
    if (body.startsWith('<!--', lt)) {
      const end = body.indexOf('-->', lt + 4);
      i = end === -1 ? length : end + 3;
      continue;
    }
    if (body.startsWith('<![CDATA[', lt)) {
      const end = body.indexOf(']]>', lt + 9);
      if (end === -1) break;
      if (justOpened) {
        justOpened.text = body.slice(lt + 9, end).trim();
        pop();
        lastLeaf = justOpened;
        justOpened = null;
      }
      i = end + 3;
      continue;
    }
    const gt = body.indexOf('>', lt + 1);
    if (gt === -1) break;
    i = gt + 1;
    const mark = body[lt + 1];
    if (mark === '?' || mark === '!') continue;
    // `< / NAME attributes / >`: read in place, without copying the tag.
    let from = lt + 1;
    while (from < gt && isSpace(body.charCodeAt(from))) from++;
    const closing = body.charCodeAt(from) === 47;
    if (closing) {
      from++;
      while (from < gt && isSpace(body.charCodeAt(from))) from++;
    }
    let last = gt - 1;
    while (last > from && isSpace(body.charCodeAt(last))) last--;
    const selfClosing = !closing && last >= from && body.charCodeAt(last) === 47;
    let to = from;
    while (to < gt && !isSpace(body.charCodeAt(to))) to++;
    if (selfClosing && to > last) to = last; // `<NAME/>`: the slash is not part of the name
    const name = body.slice(from, to).toUpperCase();
    if (!TAG_NAME.test(name)) continue;

    if (closing) {
      const previousLeaf: OpenNode | null = lastLeaf;
      lastLeaf = null;
      justOpened = null;
      if (previousLeaf && previousLeaf.name === name) continue;
      const k = indexOf(name);
      if (k > 0) closeFrom(k, true);
      if (name === 'OFX' && k > 0) complete = true;
      continue;
    }
    lastLeaf = null;
    if (name === 'OFX') complete = false; // a second <OFX> (downloads joined in one file) must close too
    const k = indexOf(name);
    if (k > 0) closeFrom(k, false);
    const node = make(name);
    append(top(), node);
    if (selfClosing) {
      justOpened = null;
      continue;
    }
    push(node);
    justOpened = node;
  }
  closeFrom(1, false);
  // The linked lists become the arrays the readers below use.
  for (const node of nodes) {
    if (node.first === null) continue;
    node.children = [];
    for (let c: OpenNode | null = node.first; c !== null; c = c.next) node.children.push(c);
  }
  for (const node of nodes) {
    node.first = null;
    node.last = null;
    node.next = null;
  }
  return { root, complete };
}

function child(node: OfxNode | undefined, name: string): OfxNode | undefined {
  return node?.children.find((c) => c.name === name);
}

function leaf(node: OfxNode | undefined, ...path: string[]): string {
  let at = node;
  for (const name of path) at = child(at, name);
  return at?.text ?? '';
}

/** The nodes named in `names` below `node`, in document order, not looking inside a node found (no recursion: a hostile file may nest deep). */
function collect(node: OfxNode, names: Set<string>, out: OfxNode[]): OfxNode[] {
  const frames: Array<{ node: OfxNode; next: number }> = [{ node, next: 0 }];
  for (let frame = frames.at(-1); frame !== undefined; frame = frames.at(-1)) {
    const c = frame.node.children.at(frame.next);
    if (c === undefined) {
      frames.pop();
      continue;
    }
    frame.next += 1;
    if (names.has(c.name)) out.push(c);
    else if (c.children.length > 0) frames.push({ node: c, next: 0 });
  }
  return out;
}

const OFX_DATE = /^(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(?:(\d{2})(?:[.,](\d{1,6}))?)?)?\s*(?:\[\s*([+-]?\d{1,2}(?:[.,]\d{1,2})?)\s*(?::[^\]]*)?\])?$/;

/**
 * A parser of OFX date-times → ms (null when invalid) for one file. Without a zone bracket: wall
 * clock in `timeZone`, each day's local midnight computed once (Intl is slow; a 10k-line file has
 * a few hundred days).
 */
export function ofxDateParser(timeZone: string): (text: string) => number | null {
  const midnights = new Map<string, number | null>();
  return (text) => {
    const m = OFX_DATE.exec(text.trim()) as (string | undefined)[] | null;
    if (!m) return null;
    const part = (index: number) => Number(m[index] ?? 0);
    const [year, month, day, hour, minute, second] = [part(1), part(2), part(3), part(4), part(5), part(6)] as const;
    const millis = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
    if (hour > 23 || minute > 59 || second > 60) return null;
    const clock = ((hour * 60 + minute) * 60 + Math.min(second, 59)) * 1000 + millis;
    if (m[8] === undefined) {
      const key = `${year}-${month}-${day}`;
      let midnight = midnights.get(key);
      if (midnight === undefined) {
        midnight = localDateTime(year, month, day, timeZone);
        midnights.set(key, midnight);
      }
      return midnight === null ? null : midnight + clock;
    }
    const utcMidnight = localDateTime(year, month, day, 'UTC');
    const offsetHours = Number(m[8].replace(',', '.'));
    if (utcMidnight === null || Math.abs(offsetHours) > 14) return null;
    return utcMidnight + clock - Math.round(offsetHours * 3_600_000);
  };
}

/** TRNAMT → amount and sign; ',' is the decimal mark when it is the last separator. */
function parseOfxAmount(text: string): { amount: string; negative: boolean } | null {
  const value = text.trim().replace(/[.,]$/, '');
  const decimal = value.lastIndexOf(',') > value.lastIndexOf('.') ? ',' : '.';
  return parseAmount(value, decimal);
}

interface Header {
  /** 1 for `OFXHEADER:100`, 2 for `<?OFX OFXHEADER="200"?>`, 0 when neither is there. */
  version: 0 | 1 | 2;
  charset?: string;
}

/** The header of the file, read from its first bytes as ASCII. */
function readHeader(bytes: Buffer): Header {
  const head = bytes.subarray(0, 4096).toString('latin1').replace(/\0/g, '');
  const xmlEncoding = /<\?xml[^>]*encoding\s*=\s*["']([^"']+)["']/i.exec(head)?.[1];
  if (/<\?OFX[^>]*OFXHEADER\s*=\s*["']?2/i.test(head)) return { version: 2, charset: xmlEncoding ?? 'utf-8' };
  if (/^\s*(?:\ufeff|ï»¿)?\s*OFXHEADER\s*:/i.test(head)) {
    const field = (key: string) => new RegExp(`^\\s*${key}\\s*:\\s*(\\S*)`, 'im').exec(head)?.[1];
    const encoding = field('ENCODING');
    return { version: 1, charset: encoding && /^(?:utf-?8|unicode)$/i.test(encoding) ? 'utf-8' : (field('CHARSET') ?? encoding) };
  }
  return { version: 0, charset: xmlEncoding };
}

export const sniffOfx: StatementSniffer = (bytes) => {
  const head = bytes.subarray(0, 1024).toString('latin1').replace(/\0/g, '');
  return /OFXHEADER\s*[:=]/i.test(head) || /^(?:\ufeff|ï»¿)?\s*(?:<\?xml[^>]*\?>\s*)?<OFX>/i.test(head);
};

export const parseOfx: StatementParser = (bytes: Buffer, options: ParseOptions): ParsedStatement => {
  if (bytes.toString('latin1').trim() === '') throw new StatementError('empty', 'The file is empty.');
  const header = readHeader(bytes);
  const text = decodeLabelledText(bytes, header.charset);
  const start = text.search(/<OFX>/i);
  if (start === -1) {
    if (header.version !== 0) throw new StatementError('truncated', 'The file has an OFX header but no <OFX> element: it is cut off or damaged. Download it again.');
    throw new StatementError(
      'notThisFormat',
      'This is not an OFX or QFX file: it has neither an OFX header (OFXHEADER) nor an <OFX> element. Export the statement from the bank as OFX, QFX or "Money/Quicken" format.',
    );
  }
  const { root, complete } = readOfxTree(text.slice(start));
  if (!complete) throw new StatementError('truncated', 'The OFX file ends before its closing </OFX> tag: it is cut off (an interrupted download?). Download it again.');

  // An investment statement is read for its cash lines only (INVBANKTRAN: deposits, interest,
  // fees of the account's cash); one without any is not a statement this import can read.
  const investments = collect(root, new Set(['INVSTMTRS']), []);
  const withCash = investments.filter((statement) => collect(statement, new Set(['INVBANKTRAN']), []).length > 0);
  const statements = [...collect(root, new Set(['STMTRS', 'CCSTMTRS']), []), ...withCash];
  if (statements.length === 0) {
    if (investments.length > 0) {
      throw new StatementError(
        'notThisFormat',
        'This OFX file holds an investment account statement without cash lines (only trades and positions); bank and credit card statements, and the cash lines of an investment account, can be imported.',
      );
    }
    const status = collect(root, new Set(['STATUS']), []).find((s) => leaf(s, 'CODE') !== '' && leaf(s, 'CODE') !== '0');
    const problem = status ? ` The bank reports error ${leaf(status, 'CODE')}${leaf(status, 'MESSAGE') ? ` (${leaf(status, 'MESSAGE')})` : ''}.` : '';
    throw new StatementError('empty', `The OFX file holds no bank or credit card statement.${problem}`);
  }

  const accounts = statements.map((statement) => ({
    statement,
    account: leaf(statement, 'BANKACCTFROM', 'ACCTID') || leaf(statement, 'CCACCTFROM', 'ACCTID') || leaf(statement, 'INVACCTFROM', 'ACCTID'),
  }));
  const distinctAccounts = [...new Set(accounts.map(({ account }) => account).filter(Boolean))];
  const lines: StatementLine[] = [];
  const invalid: InvalidLine[] = [];
  const currencies = new Set<string>();
  const parseDate = ofxDateParser(options.timeZone);
  let ordinal = 0;
  for (const { statement, account } of accounts) {
    const curdef = leaf(statement, 'CURDEF').toUpperCase();
    const transactions = collect(statement, new Set(['STMTTRN']), []);
    for (const trn of transactions) {
      ordinal += 1;
      const result = readTransaction(trn, ordinal, curdef, parseDate);
      if ('kind' in result) {
        invalid.push(result);
        continue;
      }
      if (distinctAccounts.length > 1 && account) result.method = account;
      const tail = statement.name === 'CCSTMTRS' ? /(\d{4})$/.exec(account)?.[1] : undefined;
      if (tail) result.cardTail = tail;
      currencies.add(result.currency ?? '');
      lines.push(result);
    }
    if (transactions.length === 0) currencies.add(curdef);
  }
  const [only] = currencies;
  return {
    format: 'ofx',
    lines,
    invalid,
    currency: currencies.size === 1 && only ? only : undefined,
    account: distinctAccounts.length > 0 ? distinctAccounts.join(', ') : undefined,
  };
};

function readTransaction(trn: OfxNode, line: number, curdef: string, parseDate: (text: string) => number | null): StatementLine | InvalidLine {
  const rawAmount = leaf(trn, 'TRNAMT');
  if (rawAmount === '') return { line, kind: 'missingField', reason: `Transaction ${line} has no amount (TRNAMT).` };
  const amount = parseOfxAmount(rawAmount);
  if (!amount) return { line, kind: 'badAmount', reason: `Transaction ${line}: the amount "${rawAmount}" is not a number.` };

  const posted = leaf(trn, 'DTPOSTED');
  const user = leaf(trn, 'DTUSER');
  const date = (user ? parseDate(user) : null) ?? (posted ? parseDate(posted) : null);
  if (date === null) {
    if (!posted && !user) return { line, kind: 'missingField', reason: `Transaction ${line} has no date (DTPOSTED).` };
    return { line, kind: 'badDate', reason: `Transaction ${line}: the date "${posted || user}" is not an OFX date (YYYYMMDD or YYYYMMDDHHMMSS).` };
  }

  const payee = leaf(trn, 'NAME') || leaf(trn, 'PAYEE', 'NAME');
  let description = withoutPayee(leaf(trn, 'MEMO'), payee);
  const check = leaf(trn, 'CHECKNUM').replace(/^0+(?=\d)/, '');
  if (check !== '' && check !== '0' && !`${payee} ${description}`.includes(check)) description = description ? `${description}; Check ${check}` : `Check ${check}`;
  const currency = (leaf(trn, 'CURRENCY', 'CURSYM') || curdef).toUpperCase();
  const type = leaf(trn, 'TRNTYPE').toUpperCase();
  return {
    line,
    date,
    amount: amount.amount,
    currency: currency || undefined,
    direction: amount.negative ? 'expense' : 'income',
    status: 'done',
    payee,
    description,
    externalId: leaf(trn, 'FITID'),
    sourceCategory: type || undefined,
  };
}
