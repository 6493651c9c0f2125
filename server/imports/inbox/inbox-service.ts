import { createHash, randomBytes } from 'node:crypto';
import { optionalService, type AppContext } from '../../app-context';
import { DomainError } from '../../lib/errors';
import { digestId, newId } from '../../lib/ids';
import { KeyedMutex } from '../../lib/keyed-mutex';
import { toMinor } from '../../lib/money';
import type { AssetDoc } from '../../ledger/public';
import type { UserLedgerView } from '../../ledger/public';
import { importErrors } from '../errors';
import type { DraftView } from '../result-shapes';
import { categoryNames, ruledCategory } from '../category-names';
import type { RuleService } from '../rules/rule-service';
import type { RuleBook } from '../rules/rule-matcher';
import { noticeLabel } from './notice-label';
import { parseNoticeFields, parseNoticeText, type NoticeDraft } from './notice-parsers';

/** Drafts one account's inbox holds; more are refused (409) until some are confirmed or dismissed. */
export const MAX_DRAFTS = 500;

const KEY_OF_USER = (userId: string) => `imports:inboxKey:${userId}`;
const OWNER_OF_KEY = (key: string) => `imports:inboxOwner:${key}`;
const DRAFT_PREFIX = (userId: string) => `imports:draft:${userId}:`;
/** Notices already received (by digest): the same SMS forwarded twice makes one draft. */
const SEEN_PREFIX = (userId: string) => `imports:noticeSeen:${userId}:`;

/**
 * How long a notice counts as "the same" when it comes again: one that says when the payment
 * happened is that payment for a week; one that does not (a bare "消费25.00元") only for 10 minutes
 * — a forwarder's retry — since the same purchase may well happen twice.
 */
const SAME_WITH_TIME_MS = 7 * 86_400_000;
const SAME_WITHOUT_TIME_MS = 10 * 60_000;

interface SeenNotice {
  draftId: string;
  at: number;
  timeFromText: boolean;
}

/** A notice's identity: its text with runs of white space as one, or its fields in key order. */
function noticeDigest(payload: string | Record<string, unknown>): string {
  const canonical =
    typeof payload === 'string'
      ? payload.replace(/\s+/g, ' ').trim()
      : JSON.stringify(
          Object.keys(payload)
            .sort()
            .map((key) => [key, payload[key]]),
        );
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 32);
}

export interface DraftDoc {
  id: string;
  userId: string;
  receivedAt: number;
  notice: NoticeDraft;
}

interface DraftContext {
  view: UserLedgerView;
  book: RuleBook;
  names: Map<string, string>;
  fallback: { income: string; expense: string };
}

export interface DraftOverrides {
  asset?: string;
  amount?: number;
  type?: 'income' | 'expense';
  category?: string;
  tags?: string[];
  description?: string;
  date?: number;
}

/** The record id a draft is written under ('ib' + 22 base62 characters of SHA-256): confirming twice writes one record. */
export function draftRecordId(draftId: string): string {
  return digestId('ib', `inbox:${draftId}`);
}

/**
 * The record-by-message inbox (docs/import.md "Inbox"): a private URL per account takes forwarded
 * payment notices (bank SMS, Alipay/WeChat Pay notices, iOS Shortcuts), each becomes a draft with
 * the rules applied, and the person confirms or dismisses it — or a rule confirms it at once.
 * Keys and drafts are in the local store: they never sync.
 */
export class InboxService {
  private readonly drafting = new KeyedMutex();

  constructor(
    private readonly app: AppContext,
    private readonly rules: RuleService,
  ) {}

  /** The account's inbox key (made on first use), or a new one with `rotate` (the old URL stops working). */
  async key(userId: string, rotate = false): Promise<string> {
    const local = this.app.db.local;
    const current = await local.get<string>(KEY_OF_USER(userId));
    if (current && !rotate) return current;
    const key = `in${randomBytes(18).toString('base64url').replace(/[-_]/g, '')}`.slice(0, 26);
    await local.batch([
      ...(current ? [{ type: 'del' as const, key: OWNER_OF_KEY(current) }] : []),
      { type: 'put', key: KEY_OF_USER(userId), value: key },
      { type: 'put', key: OWNER_OF_KEY(key), value: userId },
    ]);
    return key;
  }

  /** A notice posted to /in/{key}: a draft, or a record when a rule confirms it. */
  async receive(key: string, payload: string | Record<string, unknown>) {
    const userId = /^in[0-9A-Za-z]{10,40}$/.test(key) ? await this.app.db.local.get<string>(OWNER_OF_KEY(key)) : undefined;
    if (!userId) throw importErrors.draftNotFound().with({ reason: 'unknownInbox' });
    // "11月28日18:42" is the person's wall clock, not this computer's (a home server in UTC).
    const options = { now: this.app.clock.now(), timeZone: await this.app.services.users.timeZone(userId) };
    const parsed = typeof payload === 'string' ? parseNoticeText(payload, options) : parseNoticeFields(payload, options);
    if (!parsed) throw importErrors.noticeNotUnderstood();
    // A notice is about a payment that happened: a time before 1970 or more than a day ahead (a
    // typo, seconds taken for milliseconds) is not believed; the notice's arrival stands instead.
    const believable = Number.isSafeInteger(parsed.time) && parsed.time >= 0 && parsed.time <= options.now + 86_400_000;
    const notice = believable ? parsed : { ...parsed, time: options.now, timeFromText: false };
    const local = this.app.db.local;
    const digest = noticeDigest(payload);
    // Counted and stored under one lock per account: notices arriving together cannot all see room
    // for one more, nor both miss that the other is the same notice.
    const received = await this.drafting.run(userId, async () => {
      const now = this.app.clock.now();
      const seenKey = `${SEEN_PREFIX(userId)}${digest}`;
      const seen = await local.get<SeenNotice>(seenKey);
      if (seen && now - seen.at <= (seen.timeFromText ? SAME_WITH_TIME_MS : SAME_WITHOUT_TIME_MS)) return { id: seen.draftId, again: true };
      const drafts = await local.entries<DraftDoc>(DRAFT_PREFIX(userId));
      if (drafts.length >= MAX_DRAFTS) throw importErrors.inboxFull(MAX_DRAFTS);
      const made: DraftDoc = { id: newId(now), userId, receivedAt: now, notice };
      const stale = (await local.entries<SeenNotice>(SEEN_PREFIX(userId))).filter(([, s]) => now - s.at > SAME_WITH_TIME_MS).map(([k]) => ({ type: 'del' as const, key: k }));
      await local.batch([
        ...stale,
        { type: 'put', key: `${DRAFT_PREFIX(userId)}${made.id}`, value: made },
        { type: 'put', key: seenKey, value: { draftId: made.id, at: now, timeFromText: notice.timeFromText } satisfies SeenNotice },
      ]);
      return { id: made.id, again: false, draft: made };
    });
    // What the sender learns: what was understood, never the person's assets or categories.
    const understood = { id: received.id, type: notice.direction, amount: Number(notice.amount), currency: notice.currency, merchant: notice.merchant, date: notice.time };
    // The same notice again: nothing new; the answer says which draft (or record) it already is.
    if (!received.draft) return { ...understood, autoConfirmed: false, duplicate: true };
    const draft = received.draft;
    const view = this.show(draft, await this.context(userId));
    if (view.autoConfirm && !view.problem) {
      try {
        const record = await this.confirm(userId, draft.id, {});
        return this.announced(userId, { ...understood, autoConfirmed: true, recordId: record.id });
      } catch (error) {
        // A rule of the ledger refused the record (the balance would leave the exact range, …):
        // the draft waits for the person, who sees why when confirming it.
        if (!(error instanceof DomainError)) throw error;
      }
    }
    return this.announced(userId, { ...understood, autoConfirmed: false });
  }

  /** The person's open windows show the new draft (or record) now, not at their next poll (push's feed stream, docs/ui.md "Inbox"). */
  private announced<T>(userId: string, answer: T): T {
    optionalService(this.app, 'push')?.announce(userId, 'inbox');
    return answer;
  }

  async list(userId: string) {
    const drafts = await this.app.db.local.entries<DraftDoc>(DRAFT_PREFIX(userId));
    const context = await this.context(userId);
    return drafts.map(([, draft]) => this.show(draft, context)).sort((a, b) => b.receivedAt - a.receivedAt);
  }

  async confirm(userId: string, id: string, overrides: DraftOverrides) {
    const draft = await this.get(userId, id);
    const ledger = this.app.services.ledger;
    const context = await this.context(userId);
    const ledgerView = context.view;
    const shown = this.show(draft, context);
    const assetId = overrides.asset ?? shown.asset;
    if (!assetId) throw importErrors.draftNeedsAsset().at('overrides.asset');
    const asset = ledger.liveAsset(ledgerView, assetId, 'overrides.asset');
    if (overrides.amount === undefined && draft.notice.currency && draft.notice.currency !== asset.currency) {
      throw importErrors.draftCurrencyMismatch(draft.notice.currency, asset.name, asset.currency).at('overrides.amount');
    }
    const type = overrides.type ?? shown.type;
    let category = shown.category;
    if (overrides.category !== undefined || overrides.type !== undefined) category = overrides.category ?? context.fallback[type];
    const record = await ledger.createRecordOnce(
      userId,
      {
        type,
        amount: overrides.amount ?? Number(draft.notice.amount),
        asset: asset.id,
        category,
        description: overrides.description ?? shown.description,
        tags: overrides.tags ?? shown.tags,
        date: overrides.date ?? draft.notice.time,
      },
      { id: draftRecordId(draft.id), importKey: `inbox:${draft.id}`, checkBalance: false },
    );
    await this.app.db.local.del(`${DRAFT_PREFIX(userId)}${draft.id}`);
    return { id: record?.id ?? draftRecordId(draft.id), created: record !== null };
  }

  async dismiss(userId: string, id: string): Promise<void> {
    const draft = await this.get(userId, id);
    await this.app.db.local.del(`${DRAFT_PREFIX(userId)}${draft.id}`);
  }

  async forgetUser(userId: string): Promise<void> {
    const local = this.app.db.local;
    const key = await local.get<string>(KEY_OF_USER(userId));
    const drafts = await local.entries<DraftDoc>(DRAFT_PREFIX(userId));
    const seen = await local.entries<SeenNotice>(SEEN_PREFIX(userId));
    await local.batch([
      ...drafts.map(([k]) => ({ type: 'del' as const, key: k })),
      ...seen.map(([k]) => ({ type: 'del' as const, key: k })),
      ...(key
        ? [
            { type: 'del' as const, key: OWNER_OF_KEY(key) },
            { type: 'del' as const, key: KEY_OF_USER(userId) },
          ]
        : []),
    ]);
  }

  private async get(userId: string, id: string): Promise<DraftDoc> {
    const draft = typeof id === 'string' && /^[0-9A-Za-z]{1,40}$/.test(id) ? await this.app.db.local.get<DraftDoc>(`${DRAFT_PREFIX(userId)}${id}`) : undefined;
    if (!draft || draft.userId !== userId) throw importErrors.draftNotFound().at('id');
    return draft;
  }

  /** What showing an account's drafts needs, read once per request. */
  private async context(userId: string): Promise<DraftContext> {
    const ledger = this.app.services.ledger;
    return {
      view: await ledger.views.get(userId),
      book: await this.rules.book(userId),
      names: categoryNames(await ledger.categories.list(userId)),
      fallback: { income: await ledger.categories.fallbackName(userId, 'income'), expense: await ledger.categories.fallbackName(userId, 'expense') },
    };
  }

  /** A draft as the inbox shows it: its asset (by card tail, else the default asset), the rules applied, and what stops a confirm. */
  private show(draft: DraftDoc, context: DraftContext): DraftView {
    const { notice } = draft;
    const asset = assetOfNotice(context.view, notice);
    const type = notice.direction;
    const outcome = context.book.run({ description: notice.merchant, payee: notice.merchant, amount: Number(notice.amount), assetId: asset?.id ?? '' });
    const ruled = ruledCategory(outcome, type, context.names);
    const category = ruled.category ?? context.fallback[type];
    const applied = ruled.applied;
    let problem: DraftView['problem'];
    if (!asset) problem = 'needsAsset';
    else if (notice.currency && notice.currency !== asset.currency) problem = 'currencyMismatch';
    else {
      try {
        toMinor(Number(notice.amount), asset.currency);
      } catch {
        problem = 'badAmount';
      }
    }
    return {
      id: draft.id,
      receivedAt: draft.receivedAt,
      type,
      amount: Number(notice.amount),
      currency: notice.currency || asset?.currency || '',
      merchant: notice.merchant,
      date: notice.time,
      cardTail: notice.cardTail,
      source: notice.source,
      note: notice.note,
      asset: asset?.id ?? '',
      assetName: asset?.name ?? '',
      category,
      tags: outcome.set.tags ?? [],
      description: outcome.set.description ?? noticeLabel(notice),
      rules: applied,
      autoConfirm: outcome.autoConfirm,
      ...(problem ? { problem } : {}),
    };
  }
}

/** Assets a payment app's notice belongs to, by what their names say (Alipay's 花呗 before Alipay itself). */
const APP_ASSETS: Array<{ when: (notice: NoticeDraft) => boolean; name: RegExp }> = [
  { when: (notice) => notice.source === 'alipay' && /花呗/.test(notice.note), name: /花呗|huabei/i },
  { when: (notice) => notice.source === 'alipay', name: /支付宝|alipay/i },
  { when: (notice) => notice.source === 'wechat', name: /微信|wechat/i },
];

/**
 * The asset a notice names: the one live asset whose name or description has the card's last four
 * digits; else, for a payment app's notice, the one asset named after that app (支付宝 / Alipay,
 * 花呗 when it paid, 微信 / WeChat); else the default asset.
 */
function assetOfNotice(view: UserLedgerView, notice: NoticeDraft): AssetDoc | undefined {
  const live = [...view.assets.values()].filter((a) => !a.delFlag);
  const only = (test: (text: string) => boolean) => {
    const found = live.filter((a) => test(`${a.name} ${a.description}`));
    return found.length === 1 ? found[0] : undefined;
  };
  if (/^\d{3,6}$/.test(notice.cardTail)) {
    const tail = new RegExp(`(?<!\\d)${notice.cardTail}(?!\\d)`);
    const byTail = only((text) => tail.test(text));
    if (byTail) return byTail;
  }
  for (const app of APP_ASSETS) {
    if (!app.when(notice)) continue;
    const byApp = only((text) => app.name.test(text));
    if (byApp) return byApp;
  }
  return live.find((a) => a.isDefault);
}
