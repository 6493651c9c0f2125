import type { RxCollection } from 'rxdb';
import { importedKeys, writeImportedRecords, type ImportedRecordsResult } from './statement-writes';
import { optionalService, type AppContext } from '../app-context';
import { KeyedMutex } from '../lib/keyed-mutex';
import { newId } from '../lib/ids';
import { languageCurrency } from '../lib/languages';
import { isCurrencyCode, toMajor, toMinor } from '../lib/money';
import { BulkEdits, type UndoAnswer } from './bulk-edits';
import { CategoryService } from './categories';
import { ledgerErrors } from './errors';
import { assertLedgerInRange } from './limits';
import { assetView, recordView, type AssetView, type RecordView } from './presenters';
import { RateService } from './rates';
import { expensesByPeriod, type ExpensesByPeriod } from './spending';
import { buildRecord, checkBalances, liveAsset, type AttachmentInfo, type FileAttachments, type RecordInput, type RecordPatch } from './record-checks';
import { ASSET_STATUSES, ASSET_TYPES, NEGATIVE_ALLOWED, type AssetDoc, type AssetStatus, type AssetType, type RecordDoc } from './schema';
import { LedgerViews } from './ledger-views';
import type { Entry, UserLedgerView } from './views';

/** Pagination used by every list of the ledger (documented in docs/api.md). */
export const PAGE_SIZE_DEFAULT = 20;
export const PAGE_SIZE_MAX = 200;

/** Assets and records: the rules of money (docs/ledger.md). */
export class LedgerService {
  readonly views: LedgerViews;
  readonly categories: CategoryService;
  readonly rates: RateService;
  /** Bulk changes, copies of a record and undo (bulk-edits.ts). */
  readonly bulk: BulkEdits;
  private readonly writes = new KeyedMutex();

  constructor(private readonly app: AppContext) {
    this.views = new LedgerViews(app.db, {
      onSaveError: (error) =>
        app.log.warn('ledger: saving a view failed (it is rebuilt from the records at the next start)', { error: error instanceof Error ? error.message : String(error) }),
      onSavedViewDamaged: (userId, error) => app.log.warn('ledger: a saved view could not be used and was rebuilt from the records', { userId, error: error.message }),
    });
    this.categories = new CategoryService(app);
    this.rates = new RateService(app, this.views, (userId, task) => this.exclusive(userId, task));
    this.bulk = new BulkEdits(app, this);
  }

  private get assets(): RxCollection<AssetDoc> {
    return this.app.db.collection<AssetDoc>('assets');
  }

  private get records(): RxCollection<RecordDoc> {
    return this.app.db.collection<RecordDoc>('records');
  }

  private get files(): FileAttachments | undefined {
    return optionalService(this.app, 'files');
  }

  /** Runs a read-check-write of one user's ledger without interleaving with their other writes. */
  exclusive<T>(userId: string, task: () => Promise<T>): Promise<T> {
    return this.writes.run(userId, task);
  }

  // ---------------------------------------------------------------- currency

  /**
   * The user's base currency: the one they set, else their first asset's, else the currency of the
   * language they signed up in (CNY for zh-CN, USD otherwise; server/lib/languages.ts).
   */
  async baseCurrency(userId: string, view?: UserLedgerView): Promise<{ currency: string; explicit: boolean }> {
    const prefs = await this.app.services.users.getPrefs<{ baseCurrency: string }>(userId, 'ledger');
    if (prefs.baseCurrency) return { currency: prefs.baseCurrency, explicit: true };
    const v = view ?? (await this.views.get(userId));
    let first: AssetDoc | undefined;
    for (const asset of v.assets.values()) if (!first || asset.createdAt < first.createdAt) first = asset;
    return { currency: first?.currency ?? languageCurrency(await this.app.services.users.language(userId)), explicit: false };
  }

  async setBaseCurrency(userId: string, currency: string): Promise<{ baseCurrency: string }> {
    if (!isCurrencyCode(currency)) throw ledgerErrors.unknownCurrency(currency).at('currency');
    await this.app.services.users.updatePrefs(userId, 'ledger', { baseCurrency: currency });
    return { baseCurrency: currency };
  }

  // ---------------------------------------------------------------- assets

  /** An asset as the actions show it (presenters.ts). */
  assetView(view: UserLedgerView, doc: AssetDoc, withCount = false): AssetView {
    return assetView(view, doc, withCount);
  }

  /** A live (not deleted) asset of this user, or 2001 blaming `field`. */
  liveAsset(view: UserLedgerView, id: string, field = 'asset'): AssetDoc {
    return liveAsset(view, id, field);
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
      if (!doc) throw ledgerErrors.assetNotFound();
      await doc.incrementalPatch(patch);
      if (patch.isDefault && !current.isDefault) await this.clearOtherDefaults(userId, current.id);
      const updated = view.assets.get(current.id);
      if (!updated) throw ledgerErrors.assetNotFound();
      return this.assetView(view, updated, true);
    });
  }

  /** Soft delete: hidden from lists, records kept and still shown with the asset's name. */
  async deleteAsset(userId: string, id: string): Promise<{ deleted: true }> {
    return this.exclusive(userId, async () => {
      const view = await this.views.get(userId);
      const current = view.assets.get(id);
      if (!current || current.delFlag) throw ledgerErrors.assetNotFound();
      const doc = await this.assets.findOne(id).exec();
      if (!doc) throw ledgerErrors.assetNotFound();
      await doc.incrementalPatch({ delFlag: true, isDefault: false, updatedAt: this.app.clock.now() });
      return { deleted: true };
    });
  }

  // ---------------------------------------------------------------- records

  /** A record as the actions show it (presenters.ts). */
  recordView(view: UserLedgerView, doc: RecordDoc | (Entry & Partial<RecordDoc>)): RecordView {
    return recordView(view, doc);
  }

  /** The balance checks of record-checks.ts checkBalances: the exact range always, below zero unless allowed. */
  private checkBalances(view: UserLedgerView, before: RecordDoc[], after: RecordDoc[], options?: { allowBelowZero?: boolean }): void {
    checkBalances(view, before, after, options);
  }

  private async checkAttachments(userId: string, ids: string[] | undefined): Promise<string[]> {
    const unique = [...new Set(ids ?? [])];
    if (unique.length === 0) return [];
    const files = this.files;
    if (!files) throw ledgerErrors.attachmentsUnavailable();
    await files.assertOwned(userId, unique);
    return unique;
  }

  /** Builds the stored record from an input, checking all of it; `current` for updates. */
  private buildRecord(userId: string, view: UserLedgerView, input: RecordInput, current?: RecordDoc): Promise<RecordDoc> {
    const context = { now: this.app.clock.now(), categories: this.categories, checkAttachments: (ids: string[]) => this.checkAttachments(userId, ids) };
    return buildRecord(context, userId, view, input, current);
  }

  async createRecord(userId: string, input: RecordInput): Promise<RecordView> {
    return this.exclusive(userId, async () => {
      const view = await this.views.get(userId);
      const doc = await this.buildRecord(userId, view, input);
      this.checkBalances(view, [], [doc]);
      await this.records.insert(doc);
      return this.recordView(view, doc);
    });
  }

  /**
   * Writes a record with a given id and importKey (the occurrences of recurring items), once: when a
   * record with this id exists, even deleted (a tombstone), nothing is written and `null` answers.
   * `checkBalance: false` writes it even if it takes an asset below zero (a bill that was paid);
   * the exact range of balances holds all the same.
   */
  async createRecordOnce(userId: string, input: RecordInput, options: { id: string; importKey: string; checkBalance: boolean }): Promise<RecordView | null> {
    return this.exclusive(userId, async () => {
      if (await this.recordIdTaken(options.id)) return null;
      const view = await this.views.get(userId);
      const doc = { ...(await this.buildRecord(userId, view, input)), id: options.id, importKey: options.importKey };
      this.checkBalances(view, [], [doc], { allowBelowZero: !options.checkBalance });
      await this.records.insert(doc);
      return this.recordView(view, doc);
    });
  }

  /** Whether a record with this id was ever stored here (live or deleted). */
  async recordIdTaken(id: string): Promise<boolean> {
    const found = await this.records.storageInstance.findDocumentsById([id], true);
    return found.length > 0;
  }

  /** Which of these record ids were ever stored here (live or deleted). */
  async recordIdsTaken(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const found = await this.records.storageInstance.findDocumentsById(ids, true);
    return new Set(found.map((d) => (d as unknown as { id: string }).id));
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
      this.checkBalances(view, [current], [next]);
      const doc = await this.records.findOne(current.id).exec();
      if (!doc) throw ledgerErrors.recordNotFound();
      await doc.incrementalModify((data) => ({ ...data, ...next }));
      return this.recordView(view, next);
    });
  }

  /** Deletes one record; the answer's token undoes it for 60 s (accounting.undo). */
  async deleteRecord(userId: string, id: string): Promise<{ deleted: true } & UndoAnswer> {
    return this.exclusive(userId, async () => {
      const current = await this.ownRecord(userId, id);
      const view = await this.views.get(userId);
      this.checkBalances(view, [current], []);
      const doc = await this.records.findOne(id).exec();
      if (!doc) throw ledgerErrors.recordNotFound();
      await doc.remove();
      return { deleted: true, ...this.bulk.undo.remember(userId, [{ before: current, after: null }]) };
    });
  }

  /** Full documents of the given ids, in the given order (used by lists after filtering in the view). */
  async recordsByIds(ids: string[]): Promise<RecordDoc[]> {
    if (ids.length === 0) return [];
    const found = await this.records.storageInstance.findDocumentsById(ids, false);
    const byId = new Map(found.map((d) => [d.id, d as unknown as RecordDoc]));
    return ids.map((id) => byId.get(id)).filter((d): d is RecordDoc => d !== undefined);
  }

  /**
   * Calls `listener` for every record written, changed or deleted (here, by an import or by sync)
   * with its owner and creation time; answers the subscription. The savings game counts
   * bookkeeping days with it.
   */
  watchRecords(listener: (change: { userId: string; operation: 'INSERT' | 'UPDATE' | 'DELETE'; createdAt: number }) => void): { unsubscribe(): void } {
    return this.records.$.subscribe((event) => {
      // RxDB types documentData as always set, yet its own getDocumentDataOfRxChangeEvent falls back to previousDocumentData.
      const data = event as { documentData?: RecordDoc; previousDocumentData?: RecordDoc };
      const doc = data.documentData ?? data.previousDocumentData;
      if (doc?.userId) listener({ userId: doc.userId, operation: event.operation, createdAt: doc.createdAt });
    });
  }

  /**
   * Calls `listener` when a live income or expense record changes category (by the person here, a
   * bulk edit, or by sync), with its description: the import rules suggest a rule from these.
   */
  watchCategoryChanges(listener: (change: { userId: string; type: 'income' | 'expense'; description: string; from: string; to: string }) => void): { unsubscribe(): void } {
    return this.records.$.subscribe((event) => {
      if (event.operation !== 'UPDATE') return;
      const data = event as { documentData?: RecordDoc & { _deleted?: boolean }; previousDocumentData?: RecordDoc };
      const doc = data.documentData;
      const before = data.previousDocumentData;
      if (!doc || !before || doc._deleted || doc.type === 'transfer' || doc.type !== before.type) return;
      if (doc.category === before.category || !doc.description.trim()) return;
      // A rename, merge or delete moves every record of a category: not the person's choice per payee.
      if (this.categories.isMoving(doc.userId, doc.type, before.category)) return;
      listener({ userId: doc.userId, type: doc.type, description: doc.description, from: before.category, to: doc.category });
    });
  }

  /**
   * Expenses per category in consecutive periods (`bounds` ascending), converted to `currency` at
   * each record's date (spending.ts); computed once per change of the ledger. Budgets use it.
   */
  async expensesByPeriod(userId: string, currency: string, bounds: readonly number[]): Promise<ExpensesByPeriod> {
    const view = await this.views.get(userId);
    return view.memo(`expenses:${currency}:${bounds.join(',')}`, () => expensesByPeriod(view, currency, bounds));
  }

  /** Writes a statement import's records once per importKey (statement-writes.ts). */
  writeImported(
    userId: string,
    docs: readonly RecordDoc[],
    newCategories: ReadonlyArray<{ type: 'income' | 'expense'; name: string }>,
    field: string,
    labels?: readonly string[],
    guard?: (view: UserLedgerView) => Promise<ReadonlySet<number>>,
  ): Promise<ImportedRecordsResult> {
    return writeImportedRecords(this.app, this, userId, docs, newCategories, field, labels, guard);
  }

  /** The importKeys of the user's live records, for an import preview (kept current from the change stream). */
  importedKeys(userId: string): Promise<{ has(key: string): boolean }> {
    return importedKeys(this.app, this, userId);
  }

  /** How many of the user's records list this file among their attachments (files asks before deleting a file). */
  async countRecordsAttaching(userId: string, fileId: string): Promise<number> {
    const docs = await this.records.find({ selector: { userId } }).exec();
    let count = 0;
    for (const doc of docs) if ((doc.get('attachments') as string[] | undefined)?.includes(fileId)) count++;
    return count;
  }
}
