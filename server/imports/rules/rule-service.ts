import type { AppContext } from '../../app-context';
import { newId } from '../../lib/ids';
import { importErrors } from '../errors';
import { compileRulePattern } from './linear-regex';
import { RuleBook } from './rule-matcher';
import { OPS_OF_FIELD, type RuleDoc, type RuleMatch, type RuleSet } from './rule-types';
import { foldText, nameKey } from '../../lib/fold-text';

/** Rules per account. */
export const MAX_RULES = 500;
/** Longest regular expression a rule may hold. */
export const MAX_REGEX_LENGTH = 200;

const PREFIX = 'imports:rule:';
const keyOf = (userId: string, id: string) => `${PREFIX}${userId}:${id}`;

export interface RuleInput {
  match: RuleMatch;
  set: RuleSet;
  autoConfirm?: boolean;
}

/**
 * The rules of every account, in the local store (`imports:rule:<userId>:<id>`): they belong to
 * this PennyPost like the inbox they serve, are in its backups, and are not synced (docs/import.md).
 * A person's rules are read once and kept as a compiled RuleBook until they change.
 */
export class RuleService {
  private readonly books = new Map<string, RuleBook>();

  constructor(private readonly app: AppContext) {}

  async list(userId: string): Promise<RuleDoc[]> {
    const entries = await this.app.db.local.entries<RuleDoc>(`${PREFIX}${userId}:`);
    return entries.map(([, doc]) => doc).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  }

  async book(userId: string): Promise<RuleBook> {
    let book = this.books.get(userId);
    if (!book) {
      book = new RuleBook(await this.list(userId));
      this.books.set(userId, book);
    }
    return book;
  }

  async create(userId: string, input: RuleInput): Promise<RuleDoc> {
    const existing = await this.list(userId);
    if (existing.length >= MAX_RULES) throw importErrors.tooManyRules(MAX_RULES);
    const now = this.app.clock.now();
    const doc: RuleDoc = { id: newId(now), userId, ...(await this.checked(userId, input)), createdAt: now, updatedAt: now };
    await this.app.db.local.put(keyOf(userId, doc.id), doc);
    this.books.delete(userId);
    return doc;
  }

  async update(userId: string, id: string, patch: Partial<RuleInput>): Promise<RuleDoc> {
    const current = await this.get(userId, id);
    const next = await this.checked(userId, { match: patch.match ?? current.match, set: patch.set ?? current.set, autoConfirm: patch.autoConfirm ?? current.autoConfirm });
    const doc: RuleDoc = { ...current, ...next, updatedAt: this.app.clock.now() };
    await this.app.db.local.put(keyOf(userId, id), doc);
    this.books.delete(userId);
    return doc;
  }

  async delete(userId: string, id: string): Promise<void> {
    await this.get(userId, id);
    await this.app.db.local.del(keyOf(userId, id));
    this.books.delete(userId);
  }

  async get(userId: string, id: string): Promise<RuleDoc> {
    const doc = await this.app.db.local.get<RuleDoc>(keyOf(userId, id));
    if (!doc || doc.userId !== userId) throw importErrors.ruleNotFound();
    return doc;
  }

  /** A renamed category: rules that set the old name set the new one (rename, merge, language switch). */
  async renameCategory(userId: string, from: string, to: string): Promise<void> {
    const ops: Array<{ type: 'put'; key: string; value: unknown }> = [];
    for (const rule of await this.list(userId)) {
      if (rule.set.category !== from) continue;
      ops.push({ type: 'put', key: keyOf(userId, rule.id), value: { ...rule, set: { ...rule.set, category: to } } });
    }
    if (ops.length === 0) return;
    await this.app.db.local.batch(ops);
    this.books.delete(userId);
  }

  async forgetUser(userId: string): Promise<void> {
    const entries = await this.app.db.local.entries<RuleDoc>(`${PREFIX}${userId}:`);
    if (entries.length > 0) await this.app.db.local.batch(entries.map(([key]) => ({ type: 'del' as const, key })));
    this.books.delete(userId);
  }

  /** The rule as stored: the operator fits the field, the value fits the operator, the category and asset exist. */
  private async checked(userId: string, input: RuleInput): Promise<Omit<RuleDoc, 'id' | 'userId' | 'createdAt' | 'updatedAt'>> {
    const { field, op } = input.match;
    let value = input.match.value;
    const ops = OPS_OF_FIELD[field];
    if (!ops.includes(op)) throw importErrors.ruleOpNotForField(field, op, ops.map((o) => `"${o}"`).join(', ')).at('match.op');
    if (field === 'amount') {
      const number = typeof value === 'number' ? value : Number(value.trim());
      if (!Number.isFinite(number) || number < 0 || number > 1e13) throw importErrors.ruleBadValue('must be an amount in major units (a number ≥ 0)').at('match.value');
      value = number;
    } else if (field === 'asset') {
      const view = await this.app.services.ledger.views.get(userId);
      const asset = view.assets.get(String(value));
      if (!asset || asset.delFlag) throw importErrors.ruleUnknownAsset().at('match.value');
      value = asset.id;
    } else {
      value = String(value);
      if (value.trim() === '') throw importErrors.ruleBadValue('must not be blank').at('match.value');
      if (op === 'regex') {
        if (value.length > MAX_REGEX_LENGTH) throw importErrors.ruleBadRegex(`at most ${MAX_REGEX_LENGTH} characters`).at('match.value');
        // Compiled for V8's linear-time engine (linear-regex.ts): no pattern can take exponential
        // time, since a rule runs inside the server for every line of every import.
        try {
          compileRulePattern(value);
        } catch (error) {
          throw importErrors.ruleBadRegex((error as Error).message).at('match.value');
        }
      }
    }
    const set: RuleSet = {};
    if (input.set.category !== undefined && input.set.category.trim() !== '') {
      const wanted = nameKey(input.set.category);
      const found = (await this.app.services.ledger.categories.list(userId)).find((c) => foldText(c.name) === wanted);
      if (!found) throw importErrors.ruleUnknownCategory(input.set.category).at('set.category');
      set.category = found.name;
    }
    if (input.set.tags && input.set.tags.length > 0) set.tags = [...new Set(input.set.tags.map((t) => t.trim()).filter(Boolean))];
    if (input.set.description !== undefined && input.set.description.trim() !== '') set.description = input.set.description.trim();
    if (set.category === undefined && set.tags === undefined && set.description === undefined) throw importErrors.ruleSetsNothing().at('set');
    return { match: { field, op, value }, set, autoConfirm: input.autoConfirm ?? false };
  }
}
