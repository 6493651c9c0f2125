import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../app-context';
import { isTimeZone, localTimeZone } from '../../lib/calendar';
import { commonErrors } from '../../lib/errors';
import { formatMajor } from '../../lib/money';
import { withText, type RecordDoc } from '../../ledger/public';
import { importErrors } from '../errors';
import { StatementError, type CsvMapping, type DateOrder, type StatementFormat } from '../formats/types';
import { MAPPED_KEYS } from '../source-categories';
import { LearnedCategories } from './learned-categories';
import { sourceAsset } from './source-asset';
import { RulesTooSlow } from '../rules/rule-matcher';
import type { RuleService } from '../rules/rule-service';
import { CommitJournal, type JournalMeta } from './commit-journal';
import type { CsvMappings } from './csv-mappings';
import { categoryKey, categoryNames } from '../category-names';
import { lineView, markLikelyDuplicates, planImport, SLICE_MS, type LineView, type Plan, type PlannedLine } from './plan';
import type { StatementReader } from './statement-reader';

/** How long a preview can be committed. */
export const PREVIEW_TTL_MS = 30 * 60_000;
/** Previews kept per account (the oldest is dropped first). */
const PREVIEWS_PER_USER = 4;
/** Lines listed per section of a preview (the summary counts all). */
export const PREVIEW_LIST = 200;
/** Largest statement, uploaded whole or in parts. */
export const MAX_STATEMENT_BYTES = 64 * 1024 * 1024;
/** Most transactions one import takes. */
export const MAX_LINES = 200_000;
/** Lines of all held previews together (every account): past it the oldest previews are dropped. */
const MAX_HELD_LINES = 400_000;
/** Unfinished uploads are dropped after this long. */
const UPLOAD_TTL_MS = 30 * 60_000;
/**
 * Bytes of uploads all accounts together may hold (two files of the largest size): past it an
 * upload answers 503 "busy, try later", so no number of accounts can fill the server's memory.
 */
export const MAX_HELD_UPLOAD_BYTES = 2 * MAX_STATEMENT_BYTES;

const giveBack = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface PreviewInput {
  format: StatementFormat;
  bytes: Buffer;
  assetId: string;
  timeZone?: string;
  mapping?: CsvMapping;
  /** QIF: the order of the dates' parts, when the person chose it. */
  dateOrder?: DateOrder;
}

export interface LineOverride {
  line: number;
  /** true: write this line (a likely duplicate, or a line the status rules skip); false: leave it out. */
  include?: boolean;
  category?: string;
  tags?: string[];
  description?: string;
  asset?: string;
  /** Makes the line a transfer from its asset to this one (for money moved between your own accounts). */
  toAsset?: string;
}

interface HeldPreview {
  token: string;
  userId: string;
  expiresAt: number;
  plan: Plan;
}

interface Upload {
  userId: string;
  parts: Buffer[];
  bytes: number;
  expiresAt: number;
}

/**
 * Statement imports (docs/import.md): a file is parsed, planned (plan.ts) and held under a token
 * for PREVIEW_TTL_MS; `commit` writes what the preview showed, with the person's overrides, once
 * per importKey. Files over the 1 MiB /api body arrive in parts (`upload`).
 */
export class ImportService {
  private readonly previews = new Map<string, HeldPreview>();
  private readonly uploads = new Map<string, Upload>();
  /** Bytes of all uploads held (MAX_HELD_UPLOAD_BYTES). */
  private heldUploadBytes = 0;
  readonly journal: CommitJournal;
  readonly learned: LearnedCategories;

  constructor(
    private readonly app: AppContext,
    private readonly rules: RuleService,
    readonly mappings: CsvMappings,
    private readonly reader: StatementReader,
  ) {
    this.journal = new CommitJournal(app);
    this.learned = new LearnedCategories(app);
  }

  /**
   * Which format a file is (by its header and structure, read in a worker thread) and the asset it
   * belongs to (source-asset.ts): 支付宝 for an Alipay bill, the card whose digits an OFX names.
   * The wizard sets its format and asset from this.
   */
  async describe(userId: string, bytes: Buffer): Promise<{ format: StatementFormat | null; account: string; asset?: { id: string; name: string; currency: string } }> {
    const { format, account } = await this.reader.guess(bytes);
    const view = await this.app.services.ledger.views.get(userId);
    const asset = sourceAsset(format, account, view.assets.values());
    return { format, account, ...(asset ? { asset: { id: asset.id, name: asset.name, currency: asset.currency } } : {}) };
  }

  /** Ends the statement reading threads (the domain stops). */
  close(): Promise<void> {
    return this.reader.close();
  }

  private dropUploadEntry(id: string): void {
    const upload = this.uploads.get(id);
    if (!upload) return;
    this.uploads.delete(id);
    this.heldUploadBytes -= upload.bytes;
  }

  /** Adds a part to an upload (a new one without `uploadId`). */
  upload(userId: string, part: Buffer, uploadId?: string): { uploadId: string; bytes: number } {
    this.sweep();
    const now = this.app.clock.now();
    const id = uploadId ?? randomBytes(16).toString('base64url');
    let upload = this.uploads.get(id);
    if (uploadId && (!upload || upload.userId !== userId)) throw importErrors.uploadExpired().at('uploadId');
    if (!upload) {
      // One upload at a time per account: a new one drops the account's unfinished ones, so no
      // account holds more than MAX_STATEMENT_BYTES of uploads in memory.
      for (const [other, held] of this.uploads) if (held.userId === userId) this.dropUploadEntry(other);
    }
    if ((upload?.bytes ?? 0) + part.length > MAX_STATEMENT_BYTES) {
      this.dropUploadEntry(id);
      throw importErrors.statementTooLarge(`${MAX_STATEMENT_BYTES / 1024 / 1024} MiB`).at('content');
    }
    // All accounts' uploads together: past the cap, 503 (the parts already sent stay for a retry).
    if (this.heldUploadBytes + part.length > MAX_HELD_UPLOAD_BYTES) throw importErrors.busy();
    if (!upload) {
      upload = { userId, parts: [], bytes: 0, expiresAt: now + UPLOAD_TTL_MS };
      this.uploads.set(id, upload);
    }
    upload.parts.push(part);
    upload.bytes += part.length;
    this.heldUploadBytes += part.length;
    upload.expiresAt = now + UPLOAD_TTL_MS;
    return { uploadId: id, bytes: upload.bytes };
  }

  /** The bytes of an upload, which stays for the preview (the CSV mapping step reads it first). */
  peekUpload(userId: string, uploadId: string): Buffer {
    const upload = this.uploads.get(uploadId);
    if (!upload || upload.userId !== userId) throw importErrors.uploadExpired().at('uploadId');
    // Joined once and kept joined: a second look (describeCsv, then the preview) copies nothing.
    if (upload.parts.length > 1) upload.parts = [Buffer.concat(upload.parts)];
    return upload.parts[0] ?? Buffer.alloc(0);
  }

  /** Drops an upload once a preview was made from it (a failed preview leaves it for another try). */
  dropUpload(userId: string, uploadId: string): void {
    if (this.uploads.get(uploadId)?.userId === userId) this.dropUploadEntry(uploadId);
  }

  async preview(userId: string, input: PreviewInput) {
    const timeZone = input.timeZone ?? localTimeZone();
    if (!isTimeZone(timeZone)) throw importErrors.unknownImportTimeZone(timeZone).at('timeZone');
    const ledger = this.app.services.ledger;
    const view = await ledger.views.get(userId);
    const asset = ledger.liveAsset(view, input.assetId, 'assetId');
    let mapping = input.mapping;
    if (input.format === 'csv') mapping = await this.mappings.resolve(userId, input.bytes, mapping);
    let statement;
    try {
      // Read in a worker thread, with a time budget (statement-reader.ts): the server's thread waits.
      statement = await this.reader.parse(input.format, input.bytes, { timeZone, mapping, ...(input.dateOrder ? { dateOrder: input.dateOrder } : {}) });
    } catch (error) {
      if (error instanceof StatementError) throw importErrors.unreadableStatement(FORMAT_NAMES[input.format], error.message).with({ field: 'content', kind: error.kind });
      throw error;
    }
    if (statement.lines.length + statement.invalid.length > MAX_LINES) throw importErrors.tooManyLines(MAX_LINES).at('content');
    const categories = await ledger.categories.list(userId);
    const defaults = new Map<string, string>();
    for (const type of ['expense', 'income'] as const) {
      for (const key of MAPPED_KEYS[type]) {
        const name = await ledger.categories.defaultCategoryName(userId, type, key);
        if (name) defaults.set(`${type}:${key}`, name);
      }
    }
    const plan = await this.plan(statement, {
      userId,
      format: input.format,
      now: this.app.clock.now(),
      view,
      asset,
      rules: await this.rules.book(userId),
      categories: categoryNames(categories),
      fallback: { income: await ledger.categories.fallbackName(userId, 'income'), expense: await ledger.categories.fallbackName(userId, 'expense') },
      refundCategory: await ledger.categories.defaultCategoryName(userId, 'income', 'refund'),
      importedKeys: await ledger.importedKeys(userId),
      importKeysOf: this.importKeysOf,
      sourceCategories: { learned: await this.learned.of(userId), defaults },
    });
    // The asset chosen keeps another currency than the whole file: said once, instead of a line
    // "in another currency" per row (skipped rows and rows of other assets would hide the cause).
    const chosen = plan.chosenAsset ?? { matched: 0, mismatched: 0 };
    if (statement.currency && statement.currency !== asset.currency && chosen.mismatched > 0 && chosen.matched === 0) {
      const suggestion = sourceAsset(
        input.format,
        statement.account ?? '',
        [...view.assets.values()].filter((a) => a.currency === statement.currency),
      );
      const other = suggestion ?? [...view.assets.values()].find((a) => !a.delFlag && a.currency === statement.currency);
      throw importErrors
        .wrongAsset(FORMAT_NAMES[input.format], statement.currency, asset.name, asset.currency, other?.name ?? '')
        .with({ field: 'assetId', currency: statement.currency, assetCurrency: asset.currency, ...(other ? { suggestedAsset: { id: other.id, name: other.name } } : {}) });
    }
    if (input.format === 'csv' && mapping && statement.signature) await this.mappings.rememberAs(userId, statement.signature, mapping);
    const held = this.hold(userId, plan);
    // The asset the source belongs to, when another was chosen (an Alipay bill into a bank card).
    const belongs = sourceAsset(input.format, statement.account ?? '', view.assets.values());
    const suggestedAsset = belongs && belongs.id !== asset.id && belongs.currency === asset.currency ? { id: belongs.id, name: belongs.name } : undefined;
    const shown = await this.summaryOf(plan, view);
    return {
      token: held.token,
      expiresAt: held.expiresAt,
      ...shown,
      summary: { ...shown.summary, ...(suggestedAsset ? { suggestedAsset } : {}), ...(plan.dateOrder ? { dateOrder: plan.dateOrder } : {}) },
      interrupted: await this.interrupted(userId),
    };
  }

  /** planImport, with the rules' time budget turned into a clear refusal. */
  private async plan(...args: Parameters<typeof planImport>): Promise<Plan> {
    try {
      return await planImport(...args);
    } catch (error) {
      if (!(error instanceof RulesTooSlow)) throw error;
      throw importErrors.rulesTooSlow(error.budgetMs / 1000, error.slowest?.ruleId ?? '').with({ field: 'content', ruleId: error.slowest?.ruleId });
    }
  }

  private async summaryOf(plan: Plan, view: Awaited<ReturnType<AppContext['services']['ledger']['views']['get']>>) {
    const by = (outcome: PlannedLine['outcome']) => plan.lines.filter((l) => l.outcome === outcome);
    const create = by('create');
    const duplicate = by('duplicate');
    const likely = by('likely');
    const skip = by('skip');
    const list = (lines: PlannedLine[]): LineView[] => lines.slice(0, PREVIEW_LIST).map((l) => lineView(l, view));
    // Which record a likely duplicate looks like: its date, text and category, so the person can tell.
    const matchIds = likely.slice(0, PREVIEW_LIST).flatMap((l) => (l.matchId ? [l.matchId] : []));
    const records = new Map((matchIds.length > 0 ? await this.app.services.ledger.recordsByIds(matchIds) : []).map((doc) => [doc.id, doc]));
    const withMatch = (line: LineView): LineView & { match?: { id: string; date: number; description: string; category: string; amount: number } } => {
      const doc = line.matchId ? records.get(line.matchId) : undefined;
      if (!doc) return line;
      return { ...line, match: { id: doc.id, date: doc.date, description: doc.description, category: doc.category, amount: Number(formatMajor(doc.amount, line.currency)) } };
    };
    return {
      summary: {
        format: plan.format,
        account: plan.account ?? '',
        lines: plan.lines.length + plan.invalid.length,
        create: create.length,
        duplicate: duplicate.length,
        likelyDuplicate: likely.length,
        skipped: skip.length,
        invalid: plan.invalid.length,
        ruled: plan.lines.filter((l) => l.rules.length > 0).length,
        newCategories: plan.newCategories,
      },
      create: list(create),
      duplicates: [...list(likely).map(withMatch), ...list(duplicate)].slice(0, PREVIEW_LIST),
      skipped: list(skip),
      invalid: plan.invalid.slice(0, PREVIEW_LIST),
    };
  }

  private hold(userId: string, plan: Plan): HeldPreview {
    this.sweep();
    const mine = [...this.previews.values()].filter((p) => p.userId === userId).sort((a, b) => a.expiresAt - b.expiresAt);
    for (const old of mine.slice(0, Math.max(0, mine.length - PREVIEWS_PER_USER + 1))) this.previews.delete(old.token);
    // Memory: all accounts' previews together hold at most MAX_HELD_LINES lines (the oldest go first).
    let total = plan.lines.length + [...this.previews.values()].reduce((sum, p) => sum + p.plan.lines.length, 0);
    for (const old of [...this.previews.values()].sort((a, b) => a.expiresAt - b.expiresAt)) {
      if (total <= MAX_HELD_LINES) break;
      this.previews.delete(old.token);
      total -= old.plan.lines.length;
    }
    const held: HeldPreview = { token: randomBytes(18).toString('base64url'), userId, plan, expiresAt: this.app.clock.now() + PREVIEW_TTL_MS };
    this.previews.set(held.token, held);
    return held;
  }

  private sweep(): void {
    const now = this.app.clock.now();
    for (const [token, held] of this.previews) if (held.expiresAt <= now) this.previews.delete(token);
    for (const [id, upload] of this.uploads) if (upload.expiresAt <= now) this.dropUploadEntry(id);
  }

  /** Writes a preview: its 'create' lines, and what the overrides include, change or leave out. */
  async commit(userId: string, token: string, overrides: readonly LineOverride[] = []) {
    this.sweep();
    const started = { at: performance.now() };
    const breathe = async () => {
      if (performance.now() - started.at < SLICE_MS) return;
      await giveBack();
      started.at = performance.now();
    };
    const held = this.previews.get(token);
    if (!held || held.userId !== userId) throw importErrors.previewExpired().at('token');
    const ledger = this.app.services.ledger;
    const view = await ledger.views.get(userId);
    const byLine = new Map(held.plan.lines.map((l) => [l.line, l]));
    const changes = new Map<number, { override: LineOverride; at: string }>();
    for (const [index, override] of overrides.entries()) {
      const planned = byLine.get(override.line);
      if (!planned) throw importErrors.unknownLine(override.line).at(`overrides.${index}.line`);
      if (planned.outcome === 'duplicate' && override.include)
        throw importErrors.overrideNotAllowed(override.line, 'it was imported before, and an import never writes a payment twice').at(`overrides.${index}.include`);
      if (planned.skipReason === 'zero' && override.include) throw importErrors.overrideNotAllowed(override.line, 'its amount is zero').at(`overrides.${index}.include`);
      if (planned.foreignCurrency !== undefined && override.include)
        throw importErrors
          .overrideNotAllowed(
            override.line,
            `its amount is in ${planned.foreignCurrency}, another currency than its asset: import the file into an asset in ${planned.foreignCurrency}`,
          )
          .at(`overrides.${index}.include`);
      if (planned.skipReason === 'openingBalance' && override.include)
        throw importErrors.overrideNotAllowed(override.line, "it is the account's starting balance, not a transaction").at(`overrides.${index}.include`);
      changes.set(override.line, { override, at: `overrides.${index}` });
    }
    const categories = await ledger.categories.list(userId);
    const names = categoryNames(categories);
    const docs: RecordDoc[] = [];
    const labels: string[] = [];
    /** Lines written as the preview planned them (not included by hand), by their index in `docs`. */
    const planned: Array<{ index: number; line: PlannedLine }> = [];
    let left = 0;
    for (const line of held.plan.lines) {
      await breathe();
      const change = changes.get(line.line);
      const wanted = change?.override.include ?? line.outcome === 'create';
      if (!wanted || line.outcome === 'duplicate') {
        if (line.outcome === 'create') left++;
        continue;
      }
      if (line.outcome === 'create' && change?.override.include !== true) planned.push({ index: docs.length, line });
      docs.push(applyOverride(line, change?.override, { view, categoryNames: names, at: change?.at ?? 'overrides' }));
      labels.push(`Line ${line.line}`);
    }
    // A payment booked since the preview (another file committed in between, or typed in by hand)
    // makes a line to create a likely duplicate now: it is left out, as the preview would say.
    // Checked under the ledger's write lock, against the ledger as it is when this import writes.
    let likelyNow = 0;
    const guard = async (current: typeof view) => {
      const copies = planned.map(({ index, line }) => ({ index, line: { ...line } }));
      await markLikelyDuplicates(
        copies.map(({ line }) => line),
        {
          view: current,
          format: held.plan.format,
          importKeysOf: this.importKeysOf,
        },
      );
      const out = new Set(copies.filter(({ line }) => line.outcome === 'likely').map(({ index }) => index));
      likelyNow = out.size;
      // What is about to be written, kept until it is: a commit cut off by a crash can be finished.
      journalId = await this.journal.begin(
        userId,
        { format: held.plan.format, account: held.plan.account ?? '', newCategories: held.plan.newCategories },
        docs.filter((_d, i) => !out.has(i)),
      );
      return out;
    };
    let journalId: string | undefined;
    let result;
    try {
      result = await ledger.writeImported(userId, docs, held.plan.newCategories, 'content', labels, guard);
    } catch (error) {
      if (journalId !== undefined) await this.afterFailedWrite(userId, journalId, docs);
      throw error;
    }
    if (journalId !== undefined) await this.journal.end(userId, journalId);
    this.previews.delete(token);
    await this.learnFrom(userId, held.plan, docs, changes);
    return {
      created: result.created.length,
      alreadyImported: result.alreadyImported.length,
      leftOut: left + likelyNow,
      likelyNow,
      recordIds: result.created.slice(0, PREVIEW_LIST).map((d) => d.id),
    };
  }

  /**
   * What the person's category changes in a preview teach (docs/import.md, "Category"): a source
   * category whose written lines all went to one category, at least one of them moved there by
   * hand, goes there next time; and each line moved by hand counts towards a rule suggestion for
   * its payee, as a re-categorised record does.
   */
  private async learnFrom(userId: string, plan: Plan, docs: readonly RecordDoc[], changes: ReadonlyMap<number, { override: LineOverride }>): Promise<void> {
    const corrected = new Set([...changes.values()].filter((c) => c.override.category !== undefined).map((c) => c.override.line));
    if (corrected.size === 0) return;
    const written = new Map(docs.map((doc) => [doc.importKey, doc]));
    const groups = new Map<string, { type: 'income' | 'expense'; source: string; categories: Set<string>; corrected: boolean }>();
    const moved: Array<{ description: string; type: 'income' | 'expense'; to: string }> = [];
    for (const line of plan.lines) {
      const doc = written.get(line.doc.importKey);
      if (!doc || (doc.type !== 'income' && doc.type !== 'expense')) continue;
      if (corrected.has(line.line)) moved.push({ description: doc.description, type: doc.type, to: doc.category });
      if (!line.sourceCategory || line.refund) continue;
      const key = `${doc.type}:${line.sourceCategory}`;
      const group = groups.get(key) ?? { type: doc.type, source: line.sourceCategory, categories: new Set<string>(), corrected: false };
      group.categories.add(doc.category);
      group.corrected ||= corrected.has(line.line);
      groups.set(key, group);
    }
    const choices = [...groups.values()].flatMap((g) => {
      const category = g.corrected && g.categories.size === 1 ? [...g.categories].at(0) : undefined;
      return category === undefined ? [] : [{ type: g.type, source: g.source, category }];
    });
    await this.learned.learn(userId, choices);
    await this.app.services.ruleSuggestions.noteMoves(userId, moved);
  }

  /** The importKeys of ledger records, by id (a likely duplicate from this source's own ids is another payment). */
  private readonly importKeysOf = async (ids: string[]) => new Map((await this.app.services.ledger.recordsByIds(ids)).map((d) => [d.id, d.importKey]));

  /** A write refused or failed: with nothing of it in the ledger the journal goes; otherwise it stays, listed as interrupted. */
  private async afterFailedWrite(userId: string, journalId: string, docs: readonly RecordDoc[]): Promise<void> {
    const keys = await this.app.services.ledger.importedKeys(userId);
    if (docs.some((doc) => doc.importKey && keys.has(doc.importKey))) this.journal.release(journalId);
    else await this.journal.end(userId, journalId);
  }

  /** Commits cut off by a crash (docs/import.md, "An interrupted import"), with how many of their records are in the ledger. */
  async interrupted(userId: string): Promise<Array<{ id: string; format: StatementFormat; account: string; startedAt: number; records: number; written: number }>> {
    const metas = await this.journal.interrupted(userId);
    if (metas.length === 0) return [];
    const keys = await this.app.services.ledger.importedKeys(userId);
    const answers = [];
    for (const meta of metas) {
      let written = 0;
      for await (const part of this.journal.records(meta)) {
        for (const doc of part) if (doc.importKey && keys.has(doc.importKey)) written++;
        await giveBack();
      }
      answers.push({ id: meta.id, format: meta.format, account: meta.account, startedAt: meta.startedAt, records: meta.records, written });
    }
    return answers;
  }

  /** Writes what an interrupted commit had not written yet (records it wrote are recognised by their importKey). */
  async finishInterrupted(userId: string, id: string): Promise<{ created: number; alreadyImported: number; recordIds: string[] }> {
    const meta = await this.journal.get(userId, id);
    if (!meta || !this.journal.claim(id)) throw importErrors.interruptedNotFound().at('id');
    try {
      const docs: RecordDoc[] = [];
      for await (const part of this.journal.records(meta)) docs.push(...part);
      const labels = docs.map((_d, i) => `Record ${i + 1} of the interrupted import`);
      const result = await this.app.services.ledger.writeImported(userId, docs, meta.newCategories, 'id', labels);
      await this.journal.end(userId, id);
      return { created: result.created.length, alreadyImported: result.alreadyImported.length, recordIds: result.created.slice(0, PREVIEW_LIST).map((d) => d.id) };
    } finally {
      this.journal.release(id);
    }
  }

  /** Forgets an interrupted commit: what it wrote stays, the rest is not written. */
  async forgetInterrupted(userId: string, id: string): Promise<{ forgotten: true }> {
    const meta: JournalMeta | undefined = await this.journal.get(userId, id);
    if (!meta) throw importErrors.interruptedNotFound().at('id');
    await this.journal.end(userId, id);
    return { forgotten: true };
  }

  async forgetUser(userId: string): Promise<void> {
    for (const [token, held] of this.previews) if (held.userId === userId) this.previews.delete(token);
    for (const [id, upload] of this.uploads) if (upload.userId === userId) this.dropUploadEntry(id);
    await this.journal.forgetUser(userId);
    await this.learned.forgetUser(userId);
  }
}

export const FORMAT_NAMES: Record<StatementFormat, string> = {
  alipay: 'Alipay bill',
  wechat: 'WeChat Pay bill',
  ofx: 'OFX',
  qif: 'QIF',
  camt: 'CAMT.053',
  csv: 'CSV',
};

function applyOverride(
  planned: PlannedLine,
  override: LineOverride | undefined,
  ctx: { view: Awaited<ReturnType<AppContext['services']['ledger']['views']['get']>>; categoryNames: Map<string, string>; at: string },
): RecordDoc {
  const doc: RecordDoc = { ...planned.doc, tags: [...planned.doc.tags] };
  if (!override) return doc;
  const liveAsset = (id: string, field: string) => {
    const asset = ctx.view.assets.get(id);
    if (!asset || asset.delFlag) throw commonErrors.invalid(`${id} is not one of your assets`).at(`${ctx.at}.${field}`);
    return asset;
  };
  if (override.asset !== undefined) {
    const asset = liveAsset(override.asset, 'asset');
    const current = ctx.view.assets.get(doc.asset);
    if (current && asset.currency !== current.currency)
      throw importErrors.overrideNotAllowed(planned.line, `${asset.name} keeps ${asset.currency}, the line is in ${current.currency}`).at(`${ctx.at}.asset`);
    doc.asset = asset.id;
  }
  if (override.toAsset !== undefined) {
    const target = liveAsset(override.toAsset, 'toAsset');
    const source = liveAsset(doc.asset, 'asset');
    if (target.id === doc.asset) throw importErrors.overrideNotAllowed(planned.line, 'a transfer needs two different assets').at(`${ctx.at}.toAsset`);
    if (target.currency !== source.currency)
      throw importErrors.overrideNotAllowed(planned.line, 'a transfer to an asset in another currency needs its received amount: record it by hand').at(`${ctx.at}.toAsset`);
    doc.type = 'transfer';
    doc.toAsset = target.id;
    doc.category = '';
  } else if (planned.skipReason === 'ownTransfer') {
    throw importErrors.overrideNotAllowed(planned.line, 'money moved between your own accounts: give toAsset to import it as a transfer').at(`${ctx.at}.toAsset`);
  }
  if (override.category !== undefined && doc.type !== 'transfer') {
    const name = ctx.categoryNames.get(categoryKey(doc.type, override.category));
    if (!name) throw commonErrors.invalid(`there is no ${doc.type} category "${override.category}"`).at(`${ctx.at}.category`);
    doc.category = name;
  }
  return withText(doc, { description: override.description, tags: override.tags });
}
