import { findCardTail, firstMerchant, type NoticeCore, type NoticeDirection } from './notice-common';
import { findMoneyEn, pickAmount, type LabelKind, type MoneyToken } from './notice-money';
import { findNoticeTime, type NoticeContext } from './notice-time';

/**
 * English bank SMS and e-mail alerts (source 'generic-en'): `You spent $12.34 at STARBUCKS with your
 * card ending 1234 on Nov 27`, `Your card ending in 1234 was charged $5.00 at Uber`, `A deposit of
 * $1,200.00 was made to account ...1234`, `Purchase of EUR 25,00 at …`, Chase's `You made a $45.67
 * transaction with AMAZON MKTPLACE PMTS`, `A refund of £19.99 from ASOS has been credited…`,
 * `You received $50.00 from John Smith`. Like the generic Chinese parser it needs an amount with a
 * currency mark and a direction word.
 */

const DIRECTION_WORDS =
  /\b(?:(deposit(?:ed)?|credited|credit(?!\s*card)|received|refund(?:ed)?|reversal|reversed|returned|payroll|salary|direct dep\w*|incoming|cash ?back|interest)|(spent|spend|charged?|purchases?|purchased|paid|debited|debit(?!\s*card)|withdrawal|withdrew|withdrawn|sent|transactions?|transferred|pos|atm|bought))\b/gi;
const ALWAYS_INCOME = /\brefund|\breversal|\breversed|payment (?:of \S+ )?(?:was |has been )?(?:received|posted)|thank you for your payment/i;

/** A clause ends after `;`, `!`, `?`, a line break, or a period before a space (with `,` too for an amount's label). */
function endsAt(text: string, i: number, commas: boolean): boolean {
  const c = text.charAt(i);
  if (';!?\n'.includes(c) || (commas && c === ',')) return true;
  return c === '.' && (i + 1 >= text.length || /\s/.test(text.charAt(i + 1)));
}

interface Word {
  index: number;
  end: number;
  kind: NoticeDirection;
}

function wordsOf(text: string): Word[] {
  const words: Word[] = [];
  DIRECTION_WORDS.lastIndex = 0;
  for (let m = DIRECTION_WORDS.exec(text); m; m = DIRECTION_WORDS.exec(text)) {
    words.push({ index: m.index, end: m.index + m[0].length, kind: m[1] ? 'income' : 'expense' });
  }
  return words;
}

function clauseStart(text: string, index: number, commas = false): number {
  let start = index;
  while (start > 0 && !endsAt(text, start - 1, commas)) start--;
  return start;
}

function clauseEnd(text: string, index: number): number {
  let end = index;
  while (end < text.length && !endsAt(text, end, false)) end++;
  return end;
}

function direction(text: string, token: MoneyToken): NoticeDirection | null {
  if (ALWAYS_INCOME.test(text)) return 'income';
  const from = clauseStart(text, token.start);
  const to = clauseEnd(text, token.end);
  const words = wordsOf(text);
  const before = words.filter((w) => w.index >= from && w.end <= token.start).at(-1);
  const after = words.find((w) => w.index >= token.end && w.index < to);
  return (before ?? after ?? words.at(0))?.kind ?? null;
}

function classifyEn(label: string): LabelKind {
  let tail = label;
  DIRECTION_WORDS.lastIndex = 0;
  for (let m = DIRECTION_WORDS.exec(label); m; m = DIRECTION_WORDS.exec(label)) tail = label.slice(m.index + m[0].length);
  if (/\b(?:balance|bal)\b/i.test(tail)) return 'balance';
  if (/available|avail|limit|minimum|\bmin\b|statement|\bfee|points|reward/i.test(tail)) return 'skip';
  return 'plain';
}

// Where a merchant name stops: a preposition, a date, punctuation or the end.
const STOP = String.raw`(?=\s+(?:on|with|using|via|for|from|was|has|have|is|in|at|ending|to)\b|\s*[,;!\n]|\.(?:\s|$)|\s+\d{1,2}[/:]|$)`;
const MERCHANT_LABELLED = new RegExp(String.raw`\b(?:merchant|payee|description)\s*[:=]\s*([^\n,;]+)`, 'i');
const MERCHANT_AT = [new RegExp(String.raw`\btransaction (?:with|at)\s+(.+?)${STOP}`, 'i'), new RegExp(String.raw`(?:\bat|@)\s+(?!\d)(.+?)${STOP}`, 'i')];
const MERCHANT_FROM = new RegExp(String.raw`\bfrom\s+(?!(?:your|the|an?|my|account|card|acct|atm)\b)(.+?)${STOP}`, 'i');
const MERCHANT_TO = new RegExp(String.raw`\b(?:sent|paid|payment|transfer(?:red)?)\b[^\n]{0,40}?\bto\s+(?!(?:your|the|an?|my|account|card|acct)\b)(.+?)${STOP}`, 'i');

/** An English notice; null without an amount with a currency mark or without a direction word. */
export function parseEn(text: string, ctx: NoticeContext): NoticeCore | null {
  const tokens = findMoneyEn(text);
  const { main, balance } = pickAmount(
    tokens,
    (token, previous) => text.slice(Math.max(previous?.end ?? 0, clauseStart(text, token.start, true)), token.start),
    (label, token) => {
      const kind = classifyEn(label);
      return !token.marked && kind !== 'balance' ? 'skip' : kind;
    },
  );
  if (!main) return null;
  const dir = direction(text, main);
  if (!dir) return null;
  const { time, fromText } = findNoticeTime(text, ctx);
  const patterns = dir === 'income' ? [MERCHANT_LABELLED, MERCHANT_FROM, ...MERCHANT_AT] : [MERCHANT_LABELLED, ...MERCHANT_AT, MERCHANT_TO];
  return {
    amount: main.amount,
    currency: main.currency,
    direction: dir,
    merchant: firstMerchant(text, patterns),
    time,
    timeFromText: fromText,
    cardTail: findCardTail(text, true),
    ...(balance === undefined ? {} : { balance }),
  };
}
