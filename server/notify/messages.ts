import { formatMajor } from '../lib/money';
import type { NotifyMessage } from './types';

/**
 * Reminders are written in the account's language (English or Simplified Chinese; every other
 * language setting reads English), like the budget alerts and the UI.
 */
export type MessageLanguage = 'en' | 'zh-CN';

export function messageLanguage(language: string | undefined): MessageLanguage {
  return language === 'zh-CN' ? 'zh-CN' : 'en';
}

/** Names are the person's own text: Markdown characters in them show as typed. */
export function escapeMd(text: string): string {
  return text.replace(/([\\`*_[\]#<>|])/g, '\\$1').replace(/\s+/g, ' ');
}

/** An amount as reminders show it: '1,234.50 CNY' (minor units in, the currency's decimals out). */
export function moneyText(minor: number, currency: string): string {
  return `${formatMajor(minor, currency)} ${currency}`;
}

/** goalReached: a savings goal reached its target. */
export function goalMessage(goal: { title: string; targetAmount: number; currency: string }, language: MessageLanguage = 'en'): NotifyMessage {
  if (language === 'zh-CN') {
    return {
      title: `目标达成：${goal.title.replace(/\s+/g, ' ').slice(0, 60)}`,
      desp: `你已为“${escapeMd(goal.title)}”存下 **${moneyText(goal.targetAmount, goal.currency)}**，干得漂亮！`,
    };
  }
  return {
    title: `Goal reached: ${goal.title.replace(/\s+/g, ' ').slice(0, 60)}`,
    desp: `You saved **${moneyText(goal.targetAmount, goal.currency)}** for “${escapeMd(goal.title)}”. Well done!`,
  };
}

/**
 * syncProblem: sync stopped with an error, or could not reach its server for a while. The message
 * names the collections only — never the server's address, user name or the error's raw text.
 */
export function syncMessage(problem: { collections: string[]; error: boolean; since: string }, language: MessageLanguage = 'en'): NotifyMessage {
  const list = problem.collections.join(', ');
  if (language === 'zh-CN') {
    return problem.error
      ? {
          title: '同步因错误而停止',
          desp: `**${list}** 的同步自 ${problem.since} 起因错误停止，不会自动重试。请在 PennyPost 的“设置 → 同步”中查看原因并重新开始。`,
        }
      : {
          title: '同步无法连接服务器',
          desp: `**${list}** 的同步自 ${problem.since} 起无法连接服务器。PennyPost 会继续重试，更改会先保存在本机，直到服务器恢复。请检查服务器或网络。`,
        };
  }
  if (problem.error) {
    return {
      title: 'Sync stopped with an error',
      desp: `Sync of **${list}** stopped with an error (since ${problem.since}) and does not retry by itself. Open Settings → Sync in PennyPost to see why and start it again.`,
    };
  }
  return {
    title: 'Sync cannot reach its server',
    desp: `Sync of **${list}** has not reached its server since ${problem.since}. PennyPost keeps retrying; changes wait on this machine until it answers. Check the server or the network.`,
  };
}

/** backupProblem: the automatic daily snapshot failed. */
export function backupMessage(failure: { at: string }, language: MessageLanguage = 'en'): NotifyMessage {
  if (language === 'zh-CN') {
    return {
      title: '自动备份失败',
      desp: `${failure.at} 的每日快照失败，最新的备份已超过一天。请在 PennyPost 的“设置 → 备份”中查看原因（常见原因是磁盘已满），并手动创建一个快照。`,
    };
  }
  return {
    title: 'Automatic backup failed',
    desp: `The daily snapshot of ${failure.at} failed, so the newest backup is older than a day. Open Settings → Backup in PennyPost to see why (a full disk is the usual cause) and take a snapshot by hand.`,
  };
}

/** A time as the messages show it: 'YYYY-MM-DD HH:MM' in the given zone. */
export function shownTime(ms: number, timeZone: string): string {
  const f = new Intl.DateTimeFormat('sv-SE', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  return f.format(new Date(ms));
}
