import type { RxCollection } from 'rxdb';
import type { AppContext } from '../app-context';
import { baseUrlOf, Signer } from '../files/public';
import { ThisServer } from '../http/this-server';
import { newId, randomBase62 } from '../lib/ids';
import { KeyedMutex } from '../lib/keyed-mutex';
import { describeError } from '../lib/logger';
import { linksErrors } from './errors';
import { URL_MAX, type LinkDoc } from './schema';
import type { LinkView } from './result-shapes';

export type { LinkView } from './result-shapes';

/** Length of generated codes: 62^7 ≈ 3.5·10^12 possibilities. */
export const CODE_LENGTH = 7;
export const CODE_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

export interface LinkInput {
  url: string;
  title?: string;
  description?: string;
  expireAt?: number;
  isPublic?: boolean;
  alias?: string;
}

export interface LinkPatch {
  url?: string;
  title?: string;
  description?: string;
  expireAt?: number;
  isPublic?: boolean;
}

/** Short links: create, look up, count hits. Published as app.services.links. */
export class LinkService {
  private readonly signer: Signer;
  /** Serialises "is this code free?" + insert. */
  private readonly codes = new KeyedMutex();
  /** Per link: hit counting, edits and deletion never interleave. */
  private readonly perLink = new KeyedMutex();
  /** Hits not yet written, per link id (coalesced: one write covers every hit that arrived meanwhile). */
  private readonly pendingHits = new Map<string, { count: number; last: number }>();
  private readonly flushing = new Set<Promise<unknown>>();
  /** This server's names and addresses (server/http/this-server.ts). */
  private readonly thisServer: ThisServer;

  constructor(private readonly app: AppContext) {
    this.signer = new Signer(app.secrets.get('links-signing'));
    this.thisServer = new ThisServer(app);
  }

  private get links(): RxCollection<LinkDoc> {
    return this.app.db.collection<LinkDoc>('links');
  }

  private baseUrl(): string {
    return baseUrlOf(this.app.settings.get().network.publicBaseUrl, this.app.listening);
  }

  shortUrlOf(code: string): string {
    return `${this.baseUrl()}/s/${code}`;
  }

  isExpired(link: LinkDoc, now = this.app.clock.now()): boolean {
    return link.expireAt > 0 && now >= link.expireAt;
  }

  /** `<exp>.<sig>` for ?t= on a private link. */
  ownerToken(link: LinkDoc): { token: string; expiresAt: number } {
    const lifetime = this.app.settings.get().links.ownerUrlSeconds * 1000;
    const expiresAt = Math.ceil((this.app.clock.now() + lifetime) / 60_000) * 60_000;
    return { token: `${expiresAt}.${this.signer.sign('open', link.id, expiresAt)}`, expiresAt };
  }

  /** 'valid', 'expired' (genuine but too old) or 'invalid'. */
  checkOwnerToken(link: LinkDoc, token: string): 'valid' | 'expired' | 'invalid' {
    const dot = token.indexOf('.');
    if (dot <= 0) return 'invalid';
    const expiresAt = Number(token.slice(0, dot));
    if (!this.signer.verify('open', link.id, expiresAt, token.slice(dot + 1))) return 'invalid';
    return this.app.clock.now() < expiresAt ? 'valid' : 'expired';
  }

  view(link: LinkDoc): LinkView {
    const out: LinkView = {
      id: link.id,
      code: link.code,
      shortUrl: this.shortUrlOf(link.code),
      url: link.url,
      title: link.title,
      description: link.description,
      expireAt: link.expireAt,
      isPublic: link.isPublic,
      expired: this.isExpired(link),
      accessCount: link.accessCount,
      lastAccessAt: link.lastAccessAt,
      createdAt: link.createdAt,
      updatedAt: link.updatedAt,
    };
    if (!link.isPublic) {
      const { token, expiresAt } = this.ownerToken(link);
      out.ownerUrl = `${out.shortUrl}?t=${token}`;
      out.ownerUrlExpiresAt = expiresAt;
    }
    return out;
  }

  /**
   * Only absolute http(s) URLs with a host and without user:password@ (a classic way to disguise
   * the real site), and nothing on this server (reachesThisServer). Returns the normalised URL.
   */
  checkTarget(raw: string): string {
    const text = raw.trim();
    let parsed: URL;
    try {
      parsed = new URL(text);
    } catch {
      throw linksErrors.urlNotAbsolute().at('url');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw linksErrors.schemeNotAllowed(parsed.protocol).at('url');
    if (!parsed.hostname) throw linksErrors.urlWithoutHost().at('url');
    if (parsed.username || parsed.password) throw linksErrors.credentialsInUrl().at('url');
    if (this.reachesThisServer(parsed)) throw linksErrors.urlReachesThisServer(parsed.hostname).at('url');
    if (parsed.href.length > URL_MAX) throw linksErrors.urlTooLong(URL_MAX).at('url');
    return parsed.href;
  }

  /**
   * Whether a URL reaches this server by any of its names or addresses, whatever the scheme, port,
   * case, user info or trailing dot: a loopback host, one of this machine's host names and interface
   * addresses, settings.network.allowedHosts, the host of settings.network.publicBaseUrl, or the
   * address the server listens on (ThisServer.namesThisMachine).
   *
   * The rule covers every URL on this server, not only its /s/ short links: a link from this
   * server to itself is pointless from outside (its UI and API are not for strangers), and any
   * narrower rule (paths under /s/) must also follow every spelling of that path (`/S/`,
   * `/%73/`, `/x/../s/`) that the server would answer. Other services on this machine (another
   * port of localhost) are refused with it: a short link is for sharing, and those addresses mean
   * something else on every other device.
   */
  reachesThisServer(url: string | URL): boolean {
    let parsed: URL;
    try {
      parsed = typeof url === 'string' ? new URL(url) : url;
    } catch {
      return false;
    }
    return this.thisServer.namesThisMachine(parsed.hostname);
  }

  /** The link with this code (if two devices synced the same code, the older one wins). */
  async findByCode(code: string): Promise<LinkDoc | null> {
    if (!CODE_PATTERN.test(code)) return null;
    const docs = await this.links.find({ selector: { code }, limit: 2 }).exec();
    const [oldest] = docs.map((d) => d.toJSON() as LinkDoc).sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
    return oldest ?? null;
  }

  private async findOwned(userId: string, id: string): Promise<LinkDoc | null> {
    const doc = await this.links.findOne(id).exec();
    const link = doc ? (doc.toJSON() as LinkDoc) : null;
    return link && link.userId === userId ? link : null;
  }

  async create(userId: string, input: LinkInput): Promise<LinkView> {
    const url = this.checkTarget(input.url);
    const now = this.app.clock.now();
    const expireAt = input.expireAt ?? 0;
    if (expireAt !== 0 && expireAt <= now) throw linksErrors.expiryInPast().at('expireAt');
    const doc = await this.codes.run('codes', async () => {
      let code: string;
      if (input.alias) {
        code = input.alias;
        if (await this.findByCode(code)) throw linksErrors.aliasTaken(code).at('alias');
      } else {
        let found: string | null = null;
        for (let attempt = 0; attempt < 8 && !found; attempt++) {
          const candidate = randomBase62(CODE_LENGTH);
          if (!(await this.findByCode(candidate))) found = candidate;
        }
        if (!found) throw new Error('could not find a free short code');
        code = found;
      }
      const link: LinkDoc = {
        id: newId(now),
        userId,
        code,
        url,
        title: input.title ?? '',
        description: input.description ?? '',
        expireAt,
        isPublic: input.isPublic ?? true,
        accessCount: 0,
        lastAccessAt: 0,
        createdAt: now,
        updatedAt: now,
      };
      await this.links.insert(link);
      return link;
    });
    return this.view(doc);
  }

  /** shortlink.query: one of the user's links by code, with up-to-date statistics. */
  async query(userId: string, code: string): Promise<LinkView> {
    const found = await this.findByCode(code);
    if (!found || found.userId !== userId) throw linksErrors.linkNotFound();
    await this.perLink.run(found.id, () => this.flush(found.id));
    const link = await this.findOwned(userId, found.id);
    if (!link) throw linksErrors.linkNotFound();
    return this.view(link);
  }

  async list(userId: string, page: number, pageSize: number) {
    await this.flushAll();
    const selector = { userId };
    const [docs, total] = await Promise.all([
      this.links.find({ selector, sort: [{ createdAt: 'desc' }, { id: 'desc' }], skip: (page - 1) * pageSize, limit: pageSize }).exec(),
      this.links.count({ selector }).exec(),
    ]);
    return { list: docs.map((d) => this.view(d.toJSON() as LinkDoc)), total, page, pageSize };
  }

  async update(userId: string, id: string, patch: LinkPatch): Promise<LinkView> {
    const changes: Partial<LinkDoc> = {};
    if (patch.url !== undefined) changes.url = this.checkTarget(patch.url);
    if (patch.title !== undefined) changes.title = patch.title;
    if (patch.description !== undefined) changes.description = patch.description;
    if (patch.expireAt !== undefined) changes.expireAt = patch.expireAt;
    if (patch.isPublic !== undefined) changes.isPublic = patch.isPublic;
    if (Object.keys(changes).length === 0) throw linksErrors.nothingToChange();
    return this.perLink.run(id, async () => {
      await this.flush(id);
      const doc = await this.links.findOne(id).exec();
      if (!doc || doc.get('userId') !== userId) throw linksErrors.linkNotFound();
      const updated = await doc.incrementalPatch({ ...changes, updatedAt: this.app.clock.now() });
      return this.view(updated.toJSON());
    });
  }

  async delete(userId: string, id: string): Promise<{ deleted: true; id: string }> {
    return this.perLink.run(id, async () => {
      const doc = await this.links.findOne(id).exec();
      if (!doc || doc.get('userId') !== userId) throw linksErrors.linkNotFound();
      this.pendingHits.delete(id);
      await doc.remove();
      return { deleted: true, id };
    });
  }

  /** Counts one redirect. Written in the background, coalesced per link, never lost to a race. */
  recordHit(id: string): void {
    const now = this.app.clock.now();
    const pending = this.pendingHits.get(id);
    if (pending) {
      pending.count++;
      pending.last = Math.max(pending.last, now);
    } else {
      this.pendingHits.set(id, { count: 1, last: now });
    }
    const task = this.perLink.run(id, () => this.flush(id)).catch((error: unknown) => this.app.log.warn('short link hit not counted', { id, ...describeError(error) }));
    this.flushing.add(task);
    void task.finally(() => this.flushing.delete(task));
  }

  /** Writes the pending hits of one link; call inside perLink.run(id). */
  private async flush(id: string): Promise<void> {
    const pending = this.pendingHits.get(id);
    if (!pending) return;
    this.pendingHits.delete(id);
    const doc = await this.links.findOne(id).exec();
    if (!doc) return;
    await doc.incrementalModify((data) => {
      data.accessCount += pending.count;
      data.lastAccessAt = Math.max(data.lastAccessAt, pending.last);
      return data;
    });
  }

  /** Waits until every counted hit is written (shortlink.list, shutdown). */
  async flushAll(): Promise<void> {
    while (this.flushing.size > 0) await Promise.all([...this.flushing]);
  }
}
