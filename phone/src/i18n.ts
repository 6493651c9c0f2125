import { currencyDecimals, toMajor } from '../../server/lib/money';

/**
 * The phone app's words in English and Chinese. The language is the desktop's (carried by the
 * pairing link), else the phone's own; amounts are shown in the ledger's currencies, dates in
 * the phone's time zone.
 */

export type Lang = 'en' | 'zh-CN';

const en = {
  appName: 'PennyPost',
  capture: 'Add',
  records: 'Records',
  overview: 'Overview',
  expense: 'Expense',
  income: 'Income',
  transfer: 'Transfer',
  amount: 'Amount',
  recordType: 'Type',
  category: 'Category',
  asset: 'Asset',
  fromAsset: 'From',
  toAsset: 'To',
  amountReceived: 'Amount received ({currency})',
  note: 'Note',
  tags: 'Tags (comma between)',
  date: 'Date',
  more: 'Note, tags, date',
  save: 'Save',
  saved: 'Saved',
  undo: 'Undo',
  deleted: 'Deleted',
  delete: 'Delete',
  cancel: 'Cancel',
  edit: 'Edit record',
  search: 'Search records',
  noRecords: 'No records yet.',
  noMatch: 'Nothing matches.',
  netWorth: 'Net worth',
  thisMonth: 'This month',
  assets: 'Assets',
  budgets: 'Budgets this month',
  upcoming: 'Upcoming',
  waitsForTap: 'waits for your tap',
  confirmOccurrence: 'Record it',
  spentOf: '{spent} of {amount}',
  notConverted: 'Not counted (no rate to {base}): {list}',
  archived: 'archived',
  keypadDelete: 'Delete last digit',
  offline: 'Offline',
  waiting: '{n} changes waiting',
  waitingOne: '1 change waiting',
  syncedAgo: 'Synced {ago}',
  notSyncedYet: 'Not synced yet',
  syncing: 'Syncing…',
  errorPush: 'changes could not be sent yet',
  errorPull: 'the ledger could not be read from CouchDB',
  justNow: 'just now',
  minutesAgo: '{n} min ago',
  hoursAgo: '{n} h ago',
  daysAgo: '{n} days ago',
  revoked: 'This phone was disconnected from the ledger on the desktop. What it has stays here, read-only.',
  forget: 'Remove this ledger from the phone',
  forgetConfirm: 'Remove the ledger and its copy from this phone? Changes not yet synced are lost.',
  pairTitle: 'Pair this phone',
  pairHelp: 'On the desktop, open Settings → Server → Sync → Add a phone. Scan its QR code with the phone camera, or paste the link here.',
  pairLink: 'Pairing link',
  pair: 'Pair',
  pairBad: 'That is not a PennyPost pairing link.',
  scan: 'Scan the QR code',
  scanStop: 'Stop scanning',
  scanNoCamera: 'The camera is not available: paste the link instead.',
  opening: 'Opening your ledger…',
  chooseCategory: 'Choose a category',
  chooseAsset: 'Choose an asset',
  pairedAs: 'Paired as “{label}”',
};

type Words = typeof en;

const zh: Words = {
  appName: 'PennyPost',
  capture: '记一笔',
  records: '流水',
  overview: '概览',
  expense: '支出',
  income: '收入',
  transfer: '转账',
  amount: '金额',
  recordType: '类型',
  category: '分类',
  asset: '账户',
  fromAsset: '转出',
  toAsset: '转入',
  amountReceived: '到账金额（{currency}）',
  note: '备注',
  tags: '标签（用逗号分隔）',
  date: '日期',
  more: '备注、标签、日期',
  save: '保存',
  saved: '已保存',
  undo: '撤销',
  deleted: '已删除',
  delete: '删除',
  cancel: '取消',
  edit: '编辑记录',
  search: '搜索流水',
  noRecords: '还没有记录。',
  noMatch: '没有匹配的记录。',
  netWorth: '净资产',
  thisMonth: '本月',
  assets: '账户',
  budgets: '本月预算',
  upcoming: '即将到期',
  waitsForTap: '等待确认',
  confirmOccurrence: '记上',
  spentOf: '已用 {spent} / {amount}',
  notConverted: '未计入（没有到 {base} 的汇率）：{list}',
  archived: '已归档',
  keypadDelete: '删除最后一位',
  offline: '离线',
  waiting: '{n} 条改动待同步',
  waitingOne: '1 条改动待同步',
  syncedAgo: '{ago}已同步',
  notSyncedYet: '尚未同步',
  syncing: '同步中…',
  errorPush: '改动暂时无法发送',
  errorPull: '无法从 CouchDB 读取账本',
  justNow: '刚刚',
  minutesAgo: '{n} 分钟前',
  hoursAgo: '{n} 小时前',
  daysAgo: '{n} 天前',
  revoked: '这台手机已在电脑上被断开。已有的数据保留在手机上，只读。',
  forget: '从手机上移除这个账本',
  forgetConfirm: '从这台手机上移除账本及其副本？尚未同步的改动会丢失。',
  pairTitle: '配对这台手机',
  pairHelp: '在电脑上打开 设置 → 服务器 → 同步 → 添加手机。用手机相机扫描二维码，或把链接粘贴到这里。',
  pairLink: '配对链接',
  pair: '配对',
  pairBad: '这不是 PennyPost 的配对链接。',
  scan: '扫描二维码',
  scanStop: '停止扫描',
  scanNoCamera: '无法使用相机：请粘贴链接。',
  opening: '正在打开账本…',
  chooseCategory: '请选择分类',
  chooseAsset: '请选择账户',
  pairedAs: '配对名称：“{label}”',
};

export type WordKey = keyof Words;

export function pickLang(preferred: string | undefined): Lang {
  const wanted = preferred ?? navigator.language;
  return wanted.toLowerCase().startsWith('zh') ? 'zh-CN' : 'en';
}

export function wordsFor(lang: Lang) {
  const words = lang === 'zh-CN' ? zh : en;
  const t = (key: WordKey, values: Record<string, string | number> = {}) => words[key].replace(/\{(\w+)\}/g, (_, name: string) => String(values[name] ?? ''));
  const money = (minor: number, currency: string) => {
    const digits = currencyDecimals(currency);
    try {
      return new Intl.NumberFormat(lang, { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits }).format(toMajor(minor, currency));
    } catch {
      return `${toMajor(minor, currency).toFixed(digits)} ${currency}`;
    }
  };
  const day = (ms: number) => new Intl.DateTimeFormat(lang, { month: 'short', day: 'numeric', weekday: 'short' }).format(ms);
  const ago = (ms: number, now = Date.now()) => {
    const minutes = Math.floor((now - ms) / 60_000);
    if (minutes < 1) return t('justNow');
    if (minutes < 60) return t('minutesAgo', { n: minutes });
    if (minutes < 48 * 60) return t('hoursAgo', { n: Math.floor(minutes / 60) });
    return t('daysAgo', { n: Math.floor(minutes / 1440) });
  };
  return { lang, t, money, day, ago };
}

export type Wording = ReturnType<typeof wordsFor>;
