import { formatMajor } from '../lib/money';
import type { NotifyMessage } from './types';

/** Names are the person's own text: Markdown characters in them show as typed. */
export function escapeMd(text: string): string {
  return text.replace(/([\\`*_[\]#<>|])/g, '\\$1').replace(/\s+/g, ' ');
}

/** goalReached: a savings goal reached its target. */
export function goalMessage(goal: { title: string; targetAmount: number; currency: string }): NotifyMessage {
  return {
    title: `Goal reached: ${goal.title.replace(/\s+/g, ' ').slice(0, 60)}`,
    desp: `You saved **${formatMajor(goal.targetAmount, goal.currency)} ${goal.currency}** for “${escapeMd(goal.title)}”. Well done!`,
  };
}

/**
 * syncProblem: sync stopped with an error, or could not reach its server for a while. The message
 * names the collections only — never the server's address, user name or the error's raw text.
 */
export function syncMessage(problem: { collections: string[]; error: boolean; since: string }): NotifyMessage {
  const list = problem.collections.join(', ');
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
export function backupMessage(failure: { at: string }): NotifyMessage {
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
