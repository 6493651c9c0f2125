import { escapeMd, moneyText, type MessageLanguage } from '../notify/public';
import type { NotifyMessage } from '../notify/public';
import type { UpcomingOccurrence } from '../notify/public';

/**
 * The billDue reminder of one occurrence, in the account's language: what, how much and when,
 * and whether it waits for a tap. Names are the person's own text (Markdown shows as typed).
 */
export function billReminder(o: UpcomingOccurrence, language: MessageLanguage): NotifyMessage {
  const amount = moneyText(o.amount, o.currency);
  const name = o.name.replace(/\s+/g, ' ').slice(0, 60);
  const category = o.category ? escapeMd(o.category) : '';
  if (language === 'zh-CN') {
    const kind = o.type === 'transfer' ? '转账' : '支出';
    return {
      title: `${name}：${o.date} 需付 ${amount}`,
      desp: `**${escapeMd(o.name)}** — ${o.date} ${kind} ${amount}${category ? `（${category}）` : ''}${o.mode === 'confirm' ? '，需在 PennyPost 中确认' : '，将自动记账'}。`,
    };
  }
  const kind = o.type === 'transfer' ? 'transfer' : 'expense';
  return {
    title: `${name}: ${amount} due on ${o.date}`,
    desp: `**${escapeMd(o.name)}** — ${kind} of ${amount}${category ? ` (${category})` : ''} on ${o.date}${o.mode === 'confirm' ? ', to confirm in PennyPost' : ', recorded automatically'}.`,
  };
}
