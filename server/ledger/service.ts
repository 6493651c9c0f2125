import type { RxCollection } from 'rxdb';
import type { AppContext } from '../app-context';
import { ledgerErrors } from './errors';
import { KeyedMutex } from '../lib/keyed-mutex';
import { newId } from '../lib/ids';
import { inRange, isCurrencyCode, MAX_MINOR, outOfRangeError, toMajor, toMinor } from '../lib/money';
import { assertLedgerInRange } from './limits';
import { CategoryService } from './categories';
import { RateService } from './rates';
import { effectsOf, LedgerViews, type Entry, type UserLedgerView } from './views';
import {
  ASSET_STATUSES,
  ASSET_TYPES,
  NEGATIVE_ALLOWED,
  RECORD_TYPES,
  type AssetDoc,
  type AssetStatus,
  type AssetType,
  type RecordDoc,
  type RecordType,
} from './schema';

/** Pagination used by every list of the ledger (documented in docs/api.md). */
export const PAGE_SIZE_DEFAULT = 20;
export const PAGE_SIZE_MAX = 200;

/** The seed's Asset shape, plus openingBalance and recordCount. Money in major units. */
export interface AssetView {
  _id: string;
  id: string;
  name: string;
  type: AssetType;
  balance: number;
  openingBalance: number;
  currency: string;
  description: string;
  status: AssetStatus;
  icon: string;
  isDefault: boolean;
  createdAt: number;
  updatedAt: number;
  delFlag: boolean;
  recordCount?: number;
  /** ['balance'] when the balance is beyond the exact range (records arrived by sync): `balance` is then the nearest number. */
  inexact?: string[];
}

export interface RecordView {
  id: string;
  type: RecordType;
  amount: number;
  currency: string;
  category: string;
  asset: string;
  assetName: string;
  fromAsset?: string;
  toAsset?: string;
  toAssetName?: string;
  toAmount?: number;
  toCurrency?: string;
  fee?: number;
  description: string;
  date: number;
  tags: string[];
  attachments: string[];
  createdAt: number;
  updatedAt: number;
}

export interface AttachmentInfo {
  fileId: string;
  fileName?: string;
  fileType?: string;
  fileSize?: number;
  url?: string;
  missing: boolean;
}

/** What the files domain offers the ledger (server/files). Optional: the ledger works without it. */
export interface FileAttachments {
  assertOwned(userId: string, fileIds: string[]): Promise<void>;
  describe(userId: string, fileIds: string[]): Promise<AttachmentInfo[]>;
}

export interface RecordInput {
  type: string;
  amount?: number;
  asset?: string;
  fromAsset?: string;
  toAsset?: string;
  fee?: number;
  toAmount?: number;
  category?: string;
  description?: string;
  date?: number;
  tags?: string[];
  attachments?: string[];
}

export interface RecordPatch {
  id: string;
  amount?: number;
  description?: string;
  category?: string;
  date?: number;
  tags?: string[];
  asset?: string;
  fromAsset?: string;
  toAsset?: string;
  fee?: number;
  toAmount?: number;
  attachments?: string[];
  expectedUpdatedAt?: number;
}

function normalizeTags(tags: string[] | undefined): string[] {
  const out: string[] = [];
  for (const tag of tags ?? []) {
    const t = tag.normalize('NFKC').trim();
    if (t && !out.includes(t)) out.push(t);
  }
  return out;
}

/** Assets and records: the rules of money (docs/ledger.md). */
export class LedgerService {
  readonly views: LedgerViews;
  readonly categories: CategoryService;
  readonly rates: RateService;
  private readonly writes = new KeyedMutex();

  constructor(private readonly app: AppContext) {
    this.views = new LedgerViews(app.db);
    this.categories = new CategoryService(app);
    this.rates = new RateService(app, this.views, (userId, task) => this.exclusive(userId, task));
  }

  private get assets(): RxCollection<AssetDoc> {
    return this.app.db.collection<AssetDoc>('assets');
  }

  private get records(): RxCollection<RecordDoc> {
    return this.app.db.collection<RecordDoc>('records');
  }

  private get files(): FileAttachments | undefined {
    return (this.app.services as { files?: FileAttachments }).files;
  }

  /** Runs a read-check-write of one user's ledger without interleaving with their other writes. */
  exclusive<T>(userId: string, task: () => Promise<T>): Promise<T> {
    return this.writes.run(userId, task);
  }

  // ---------------------------------------------------------------- currency

  /** The user's base currency: the one they set, else their first asset's, else USD. */
  async baseCurrency(userId: string, view?: UserLedgerView): Promise<{ currency: string; explicit: boolean }> {
    const prefs = await this.app.services.users.getPrefs<{ baseCurrency: string }>(userId, 'ledger');
    if (prefs.baseCurrency) return { currency: prefs.baseCurrency, explicit: true };
    const v = view ?? (await this.views.get(userId));
    let first: AssetDoc | undefined;
    for (const asset of v.assets.values()) if (!first || asset.createdAt < first.createdAt) first = asset;
    return { currency: first?.currency ?? 'USD', explicit: false };
  }

  async setBaseCurrency(userId: string, currency: string): Promise<{ baseCurrency: string }> {
    if (!isCurrencyCode(currency)) throw ledgerErrors.unknownCurrency(currency).at('currency');
    await this.app.services.users.updatePrefs(userId, 'ledger', { baseCurrency: currency });
    return { baseCurrency: currency };
  }

  // ---------------------------------------------------------------- assets

  assetView(view: UserLedgerView, doc: AssetDoc, withCount = false): AssetView {
    const result: AssetView = {
      _id: doc.id,
      id: doc.id,
      name: doc.name,
      type: doc.type,
      balance: toMajor(view.exactBalanceOf(doc.id), doc.currency),
      openingBalance: toMajor(doc.openingBalance, doc.currency),
      currency: doc.currency,
      description: doc.description,
      status: doc.status,
      icon: doc.icon,
      isDefault: doc.isDefault,
      createdAt: doc.createdAt,
      updatedAt: doc.updatedAt,
      delFlag: doc.delFlag,
    };
    if (withCount) result.recordCount = view.recordCountOf(doc.id);
    if (!view.balanceInRange(doc.id)) result.inexact = ['balance'];
    return result;
  }

  /** A live (not deleted) asset of this user, or 2001 blaming `field`. */
  liveAsset(view: UserLedgerView, id: string, field = 'asset'): AssetDoc {
    const asset = view.assets.get(id);
    if (!asset || asset.delFlag) throw ledgerErrors.assetNotFound(field).at(field);
    return asset;
  }

  private checkAssetType(type: string): AssetType {
    if (!(ASSET_TYPES as readonly string[]).includes(type)) {
      throw ledgerErrors.invalidAssetType(type).at('type');
    }
    return type as AssetType;
  }

  private async clearOtherDefaults(userId: string, keepId: string): Promise<void> {
    const others = await this.assets.find({ selector: { userId, isDefault: true } }).exec();
    const now = this.app.clock.now();
    for (const other of others) if (other.id !== keepId) await other.incrementalPatch({ isDefault: false, updatedAt: now });
  }

  async createAsset(
    userId: string,
    input: { name: string; type: string; balance?: number; currency?: string; description?: string; icon?: string; isDefault?: boolean },
  ): Promise<{ id: string }> {
    const type = this.checkAssetType(input.type);
    return this.exclusive(userId, async () => {
      const view = await this.views.get(userId);
      const currency = input.currency ?? (await this.baseCurrency(userId, view)).currency;
      if (!isCurrencyCode(currency)) throw ledgerErrors.unknownCurrency(currency).at('currency');
      const opening = toMinor(input.balance ?? 0, currency, 'balance');
      if (opening < 0 && !NEGATIVE_ALLOWED.has(type)) throw ledgerErrors.negativeOpeningBalance(type).at('balance');
      const live = [...view.assets.values()].filter((a) => !a.delFlag);
      const now = this.app.clock.now();
      const doc: AssetDoc = {
        id: newId(now),
        userId,
        name: input.name.trim(),
        type,
        currency,
        openingBalance: opening,
        description: input.description ?? '',
        icon: input.icon ?? '',
        status: 'normal',
        isDefault: input.isDefault ?? live.length === 0,
        delFlag: false,
        createdAt: now,
        updatedAt: now,
      };
      await this.assets.insert(doc);
      if (doc.isDefault) await this.clearOtherDefaults(userId, doc.id);
      return { id: doc.id };
    });
  }

  async queryAssets(
    userId: string,
    input: { type?: string; status?: string; page: number; pageSize: number },
  ): Promise<{ list: AssetView[]; total: number; page: number; pageSize: number; baseCurrency: string }> {
    if (input.type !== undefined) this.checkAssetType(input.type);
    if (input.status !== undefined && !(ASSET_STATUSES as readonly string[]).includes(input.status)) {
      throw ledgerErrors.unknownAssetStatusFilter(input.status).at('status');
    }
    const view = await this.views.get(userId);
    const matching = [...view.assets.values()]
      .filter((a) => !a.delFlag && (!input.type || a.type === input.type) && (!input.status || a.status === input.status))
      .sort((a, b) => Number(b.isDefault) - Number(a.isDefault) || a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
    const start = (input.page - 1) * input.pageSize;
    return {
      list: matching.slice(start, start + input.pageSize).map((a) => this.assetView(view, a)),
      total: matching.length,
      page: input.page,
      pageSize: input.pageSize,
      baseCurrency: (await this.baseCurrency(userId, view)).currency,
    };
  }

  async assetDetail(userId: string, id: string): Promise<AssetView> {
    const view = await this.views.get(userId);
    const asset = view.assets.get(id);
    if (!asset || asset.delFlag) throw ledgerErrors.assetNotFound();
    return this.assetView(view, asset, true);
  }

  async updateAsset(
    userId: string,
    input: {
      id: string;
      name?: string;
      description?: string;
      isDefault?: boolean;
      icon?: string;
      type?: string;
      status?: string;
      currency?: string;
      openingBalance?: number;
      expectedUpdatedAt?: number;
    },
  ): Promise<AssetView> {
    return this.exclusive(userId, async () => {
      const view = await this.views.get(userId);
      const current = view.assets.get(input.id);
      if (!current || current.delFlag) throw ledgerErrors.assetNotFound();
      if (input.expectedUpdatedAt !== undefined && input.expectedUpdatedAt !== current.updatedAt) {
        throw ledgerErrors.changedElsewhere('asset').with({ updatedAt: current.updatedAt });
      }
      const type = input.type !== undefined ? this.checkAssetType(input.type) : current.type;
      if (input.status !== undefined && !(ASSET_STATUSES as readonly string[]).includes(input.status)) {
        throw ledgerErrors.unknownAssetStatus(input.status).at('status');
      }
      const currency = input.currency ?? current.currency;
      if (currency !== current.currency) {
        if (!isCurrencyCode(currency)) throw ledgerErrors.unknownCurrency(currency).at('currency');
        if (view.recordCountOf(current.id) > 0) throw ledgerErrors.currencyLocked();
      }
      const openingBalance =
        input.openingBalance !== undefined
          ? toMinor(input.openingBalance, currency, 'openingBalance')
          : currency !== current.currency
            ? toMinor(toMajor(current.openingBalance, current.currency), currency, 'openingBalance')
            : current.openingBalance;
      const balanceAfter = BigInt(openingBalance) + view.movementOf(current.id);
      if (!NEGATIVE_ALLOWED.has(type) && balanceAfter < 0n && balanceAfter < view.exactBalanceOf(current.id)) {
        throw ledgerErrors.assetBelowZero(current.name, type);
      }
      assertLedgerInRange(view, { assets: [{ ...current, currency, openingBalance }] }, 'openingBalance');
      const patch: Partial<AssetDoc> = {
        name: input.name?.trim() ?? current.name,
        description: input.description ?? current.description,
        icon: input.icon ?? current.icon,
        isDefault: input.isDefault ?? current.isDefault,
        type,
        status: (input.status as AssetStatus | undefined) ?? current.status,
        currency,
        openingBalance,
        updatedAt: Math.max(this.app.clock.now(), current.updatedAt + 1),
      };
      const doc = await this.assets.findOne(current.id).exec();
      await doc!.incrementalPatch(patch);
      if (patch.isDefault && !current.isDefault) await this.clearOtherDefaults(userId, current.id);
      return this.assetView(view, view.assets.get(current.id)!, true);
    });
  }

  /** Soft delete: hidden from lists, records kept and still shown with the asset's name. */
  async deleteAsset(userId: string, id: string): Promise<{ deleted: true }> {
    return this.exclusive(userId, async () => {
      const view = await this.views.get(userId);
      const current = view.assets.get(id);
      if (!current || current.delFlag) throw ledgerErrors.assetNotFound();
      const doc = await this.assets.findOne(id).exec();
      await doc!.incrementalPatch({ delFlag: true, isDefault: false, updatedAt: this.app.clock.now() });
      return { deleted: true };
    });
  }

  // ---------------------------------------------------------------- records

  recordView(view: UserLedgerView, doc: RecordDoc | Entry & Partial<RecordDoc>): RecordView {
    const asset = view.assets.get(doc.asset);
    const currency = asset?.currency ?? 'USD';
    const base: RecordView = {
      id: doc.id,
      type: doc.type,
      amount: toMajor(doc.amount, currency),
      currency,
      category: doc.category,
      asset: doc.asset,
      assetName: asset?.name ?? '(unknown asset)',
      description: doc.description ?? '',
      date: doc.date,
      tags: doc.tags,
      attachments: doc.attachments ?? [],
      createdAt: doc.createdAt ?? 0,
      updatedAt: doc.updatedAt ?? 0,
    };
    if (doc.type === 'transfer') {
      const target = view.assets.get(doc.toAsset);
      const toCurrency = target?.currency ?? currency;
      base.fromAsset = doc.asset;
      base.toAsset = doc.toAsset;
      base.toAssetName = target?.name ?? '(unknown asset)';
      base.fee = toMajor(doc.fee, currency);
      base.toAmount = toMajor(doc.toAmount > 0 ? doc.toAmount : doc.amount, toCurrency);
      base.toCurrency = toCurrency;
    }
    return base;
  }

  private checkRecordType(type: string): RecordType {
    if (!(RECORD_TYPES as readonly string[]).includes(type)) {
      throw ledgerErrors.invalidRecordType(type).at('type');
    }
    return type as RecordType;
  }

  private positiveMinor(amount: number, currency: string, field: string): number {
    if (typeof amount !== 'number' || !(amount > 0)) {
      throw ledgerErrors.invalidAmount(field).at(field);
    }
    return toMinor(amount, currency, field);
  }

  /**
   * Refuses (2002) a change that would leave an asset that cannot go negative below zero and
   * lower than it was. `before` entries are taken out, `after` entries put in.
   */
  private checkBalances(view: UserLedgerView, before: Entry[], after: Entry[]): void {
    assertLedgerInRange(view, { removed: before, records: after }, 'amount');
    const delta = new Map<string, number>();
    for (const entry of before) for (const [asset, d] of effectsOf(entry)) delta.set(asset, (delta.get(asset) ?? 0) - d);
    for (const entry of after) for (const [asset, d] of effectsOf(entry)) delta.set(asset, (delta.get(asset) ?? 0) + d);
    for (const [assetId, d] of delta) {
      if (d >= 0) continue;
      const asset = view.assets.get(assetId);
      if (!asset || NEGATIVE_ALLOWED.has(asset.type)) continue;
      const now = view.exactBalanceOf(assetId);
      const next = now + BigInt(d);
      if (next < 0n) {
        throw ledgerErrors
          .insufficientBalance(asset.name, toMajor(now, asset.currency), toMajor(-d, asset.currency), asset.currency)
          .with({ assetId, balance: toMajor(now, asset.currency) });
      }
    }
  }

  private async checkAttachments(userId: string, ids: string[] | undefined): Promise<string[]> {
    const unique = [...new Set(ids ?? [])];
    if (unique.length === 0) return [];
    const files = this.files;
    if (!files) throw ledgerErrors.attachmentsUnavailable();
    await files.assertOwned(userId, unique);
    return unique;
  }

  /** Builds the stored record from an input, checking every rule; `current` for updates. */
  private async buildRecord(userId: string, view: UserLedgerView, input: RecordInput, current?: RecordDoc): Promise<RecordDoc> {
    const type = this.checkRecordType(input.type);
    const now = this.app.clock.now();
    const doc: RecordDoc = current
      ? { ...current, tags: [...current.tags], attachments: [...current.attachments] }
      : {
          id: newId(now),
          userId,
          type,
          amount: 0,
          asset: '',
          toAsset: '',
          toAmount: 0,
          fee: 0,
          category: '',
          description: '',
          searchText: '',
          date: now,
          tags: [],
          attachments: [],
          importKey: '',
          createdAt: now,
          updatedAt: now,
        };
    if (type === 'transfer') {
      if (input.category !== undefined && input.category !== '') throw ledgerErrors.transferWithCategory().at('category');
      const fromId = input.fromAsset ?? input.asset ?? current?.asset;
      const toId = input.toAsset ?? current?.toAsset;
      if (!fromId) throw ledgerErrors.requiredForTransfer('fromAsset').at('fromAsset');
      if (!toId) throw ledgerErrors.requiredForTransfer('toAsset').at('toAsset');
      if (fromId === toId) throw ledgerErrors.sameAssetTransfer().at('toAsset');
      const from = this.liveAsset(view, fromId, 'fromAsset');
      const to = this.liveAsset(view, toId, 'toAsset');
      const currencyChanged = !current || current.asset !== from.id || current.toAsset !== to.id;
      doc.asset = from.id;
      doc.toAsset = to.id;
      if (input.amount !== undefined || !current) doc.amount = this.positiveMinor(input.amount as number, from.currency, 'amount');
      if (input.fee !== undefined) {
        if (!(input.fee >= 0)) throw ledgerErrors.negativeFee('fee').at('fee');
        doc.fee = toMinor(input.fee, from.currency, 'fee');
      }
      if (doc.amount + doc.fee > MAX_MINOR) throw outOfRangeError('amount + fee', from.currency, input.fee !== undefined ? 'fee' : 'amount');
      if (from.currency === to.currency) {
        if (input.toAmount !== undefined && toMinor(input.toAmount, to.currency, 'toAmount') !== doc.amount) {
          throw ledgerErrors.toAmountNotAmount('toAmount').at('toAmount');
        }
        doc.toAmount = 0;
      } else if (input.toAmount !== undefined) {
        doc.toAmount = this.positiveMinor(input.toAmount, to.currency, 'toAmount');
      } else if (currencyChanged || input.amount !== undefined || input.date !== undefined) {
        const exact = view.rates.convertExact(doc.amount, from.currency, to.currency, input.date ?? doc.date);
        if (exact !== undefined && !inRange(exact)) throw outOfRangeError('The amount received (converted at the exchange rate)', to.currency, 'toAmount');
        const converted = exact === undefined ? undefined : Number(exact);
        if (converted === undefined || converted <= 0) {
          throw ledgerErrors.toAmountNeeded('toAmount', from.currency, to.currency).at('toAmount');
        }
        doc.toAmount = converted;
      }
      doc.category = '';
    } else {
      if (input.fromAsset !== undefined || input.toAsset !== undefined || input.fee !== undefined || input.toAmount !== undefined) {
        throw ledgerErrors.transferFieldsOnly(type);
      }
      const assetId = input.asset ?? current?.asset;
      if (!assetId) throw ledgerErrors.required('asset').at('asset');
      const asset = this.liveAsset(view, assetId);
      doc.asset = asset.id;
      if (input.amount !== undefined || !current) doc.amount = this.positiveMinor(input.amount as number, asset.currency, 'amount');
      else if (current.asset !== asset.id) doc.amount = toMinor(toMajor(current.amount, view.assets.get(current.asset)?.currency ?? asset.currency), asset.currency, 'amount');
      if (input.category !== undefined) doc.category = await this.categories.resolve(userId, type, input.category);
      else if (!current) doc.category = await this.categories.resolve(userId, type, 'Other').catch(() => '');
    }
    if (input.description !== undefined) {
      doc.description = input.description;
      doc.searchText = input.description.normalize('NFKC').toLowerCase();
    }
    if (input.date !== undefined) doc.date = input.date;
    if (input.tags !== undefined) doc.tags = normalizeTags(input.tags);
    if (input.attachments !== undefined) doc.attachments = await this.checkAttachments(userId, input.attachments);
    if (current) doc.updatedAt = Math.max(now, current.updatedAt + 1);
    return doc;
  }

  async createRecord(userId: string, input: RecordInput): Promise<RecordView> {
    return this.exclusive(userId, async () => {
      const view = await this.views.get(userId);
      const doc = await this.buildRecord(userId, view, input);
      this.checkBalances(view, [], [doc as Entry]);
      await this.records.insert(doc);
      return this.recordView(view, doc);
    });
  }

  private async ownRecord(userId: string, id: string): Promise<RecordDoc> {
    const doc = await this.records.findOne(id).exec();
    if (!doc || doc.userId !== userId) throw ledgerErrors.recordNotFound();
    return doc.toJSON() as RecordDoc;
  }

  async getRecord(userId: string, id: string): Promise<RecordView & { attachmentDetails: AttachmentInfo[] }> {
    const doc = await this.ownRecord(userId, id);
    const view = await this.views.get(userId);
    const attachmentDetails = doc.attachments.length > 0 && this.files ? await this.files.describe(userId, doc.attachments) : [];
    return { ...this.recordView(view, doc), attachmentDetails };
  }

  async updateRecord(userId: string, patch: RecordPatch): Promise<RecordView> {
    return this.exclusive(userId, async () => {
      const current = await this.ownRecord(userId, patch.id);
      if (patch.expectedUpdatedAt !== undefined && patch.expectedUpdatedAt !== current.updatedAt) {
        throw ledgerErrors.changedElsewhere('record').with({ updatedAt: current.updatedAt });
      }
      const view = await this.views.get(userId);
      const { id: _id, expectedUpdatedAt: _e, ...changes } = patch;
      const next = await this.buildRecord(userId, view, { ...changes, type: current.type }, current);
      this.checkBalances(view, [current as Entry], [next as Entry]);
      const doc = await this.records.findOne(current.id).exec();
      await doc!.incrementalModify((data) => ({ ...data, ...next }));
      return this.recordView(view, next);
    });
  }

  async deleteRecord(userId: string, id: string): Promise<{ deleted: true }> {
    return this.exclusive(userId, async () => {
      const current = await this.ownRecord(userId, id);
      const view = await this.views.get(userId);
      this.checkBalances(view, [current as Entry], []);
      const doc = await this.records.findOne(id).exec();
      await doc!.remove();
      return { deleted: true };
    });
  }

  /** Full documents of the given ids, in the given order (used by lists after filtering in the view). */
  async recordsByIds(ids: string[]): Promise<RecordDoc[]> {
    if (ids.length === 0) return [];
    const found = await this.records.storageInstance.findDocumentsById(ids, false);
    const byId = new Map(found.map((d) => [d.id, d as unknown as RecordDoc]));
    return ids.map((id) => byId.get(id)).filter((d): d is RecordDoc => d !== undefined);
  }
}
