import type { NoticeDraft } from './notice-parsers';

/**
 * What a notice without a merchant is about, in its own language: a bank's salary SMS names no
 * payer ("…工资(代发)入账8,888.00元"), and a draft titled "付款" or left blank says nothing.
 * The first matching kind wins; '' when none does (the UI then names the direction).
 */
const LABELS: Array<[RegExp, string]> = [
  [/工资|代发|薪资|薪金|奖金/, '工资'],
  [/\b(?:salary|payroll|wages?)\b/i, 'Salary'],
  [/退款|退货/, '退款'],
  [/\brefund/i, 'Refund'],
  [/结息|利息/, '利息'],
  [/\binterest\b/i, 'Interest'],
  [/红包/, '红包'],
  [/还款/, '还款'],
  [/转账|汇款|转入|转出/, '转账'],
  [/\btransfer\b/i, 'Transfer'],
  [/取款|取现|ATM/i, '取现'],
];

export function noticeLabel(notice: Pick<NoticeDraft, 'merchant' | 'note'>): string {
  if (notice.merchant) return notice.merchant;
  for (const [pattern, label] of LABELS) if (pattern.test(notice.note)) return label;
  return '';
}
