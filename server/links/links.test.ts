import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../lib/clock';
import { registerUser, startTestServer, type TestServer } from '../test-support/test-server';
import { commonErrors } from '../lib/errors';
import { linksErrors } from './errors';
import { expectRefusal } from '../test-support/refusal';

const START = Date.UTC(2026, 4, 1, 12, 0, 0);
const HOUR = 3600_000;

describe('short links', () => {
  let t: TestServer;
  const clock = new ManualClock(START);
  let alice: { token: string; id: string };
  let bob: { token: string; id: string };
  beforeAll(async () => {
    t = await startTestServer({ clock, settings: { links: { missesPerAddress: 1000 } } });
    alice = await registerUser(t);
    bob = await registerUser(t);
  });
  afterAll(() => t.close());

  const hit = (code: string, init: RequestInit = {}) => t.fetch(`/s/${code}`, { redirect: 'manual', ...init });

  it('creates a 7-character base62 code and redirects with 302 while live', async () => {
    const created = await t.api('shortlink.create', { url: 'https://example.com/pay?bill=42#top', title: 'Rent', description: 'May rent', isPublic: true }, alice.token);
    expect(created.status).toBe(200);
    const link = created.data;
    expect(link.code).toMatch(/^[0-9A-Za-z]{7}$/);
    expect(link).toMatchObject({
      url: 'https://example.com/pay?bill=42#top',
      title: 'Rent',
      description: 'May rent',
      isPublic: true,
      expireAt: 0,
      expired: false,
      accessCount: 0,
      lastAccessAt: 0,
      shortUrl: `${t.url}/s/${link.code}`,
    });
    expect(link.ownerUrl).toBeUndefined();

    const res = await hit(link.code);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://example.com/pay?bill=42#top');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');

    const codes = new Set<string>();
    for (let i = 0; i < 20; i++) codes.add((await t.api('shortlink.create', { url: 'https://example.com/' }, alice.token)).data.code);
    expect(codes.size).toBe(20);
  });

  it('answers 404 with a page for unknown codes, and counts nothing', async () => {
    for (const code of ['nope123', 'x', 'a'.repeat(40), '%3Cscript%3E']) {
      const res = await hit(code);
      expect(res.status, code).toBe(404);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const body = await res.text();
      expect(body).toMatch(/Link not found/);
      expect(body).not.toMatch(/<script/);
    }
  });

  it('keeps access count and last access time, without losing concurrent hits', async () => {
    const { data: link } = await t.api('shortlink.create', { url: 'https://example.com/popular' }, alice.token);
    clock.advance(1000);
    const answers = await Promise.all(Array.from({ length: 60 }, () => hit(link.code)));
    expect(answers.every((a) => a.status === 302)).toBe(true);
    const stats = await t.api('shortlink.query', { code: link.code }, alice.token);
    expect(stats.data).toMatchObject({ accessCount: 60, lastAccessAt: clock.now() });

    // HEAD (link previews) does not count.
    expect((await hit(link.code, { method: 'HEAD' })).status).toBe(302);
    expect((await t.api('shortlink.query', { code: link.code }, alice.token)).data.accessCount).toBe(60);

    // Interleaved edits do not drop hits either.
    const mixed = await Promise.all([
      ...Array.from({ length: 20 }, () => hit(link.code)),
      t.api('shortlink.update', { id: link.id, title: 'Popular' }, alice.token),
      ...Array.from({ length: 20 }, () => hit(link.code)),
    ]);
    expect(mixed.filter((a) => a.status === 302)).toHaveLength(40);
    const after = await t.api('shortlink.query', { code: link.code }, alice.token);
    expect(after.data).toMatchObject({ accessCount: 100, title: 'Popular' });
  });

  it('answers 410 with a page after expiry, and the expiry can be changed', async () => {
    const { data: link } = await t.api('shortlink.create', { url: 'https://example.com/sale', expireAt: clock.now() + HOUR }, alice.token);
    expect((await hit(link.code)).status).toBe(302);
    clock.advance(HOUR - 1);
    expect((await hit(link.code)).status).toBe(302);
    clock.advance(1);
    const gone = await hit(link.code);
    expect(gone.status).toBe(410);
    expect(await gone.text()).toMatch(/Link expired/);
    const q = await t.api('shortlink.query', { code: link.code }, alice.token);
    expect(q.data).toMatchObject({ expired: true, accessCount: 2 });

    const extended = await t.api('shortlink.update', { id: link.id, expireAt: clock.now() + HOUR }, alice.token);
    expect(extended.data.expired).toBe(false);
    expect((await hit(link.code)).status).toBe(302);
    await t.api('shortlink.update', { id: link.id, expireAt: 0 }, alice.token);
    clock.advance(100 * HOUR);
    expect((await hit(link.code)).status).toBe(302);
    await t.api('shortlink.update', { id: link.id, expireAt: clock.now() - 1 }, alice.token);
    expect((await hit(link.code)).status).toBe(410);

    const past = await t.api('shortlink.create', { url: 'https://example.com/', expireAt: clock.now() }, alice.token);
    expect(past).toMatchObject({ status: 400, data: { field: 'params.expireAt' } });
  });

  it('redirects a private link only for its owner (Bearer or ownerUrl), 404 for everyone else', async () => {
    const { data: link } = await t.api('shortlink.create', { url: 'https://bank.example/statement', isPublic: false }, alice.token);
    expect(link.isPublic).toBe(false);
    expect(link.ownerUrl).toMatch(new RegExp(`^${t.url}/s/${link.code}\\?t=\\d+\\.`));

    expect((await hit(link.code)).status).toBe(404);
    expect((await hit(link.code, { headers: { authorization: `Bearer ${bob.token}` } })).status).toBe(404);
    expect((await hit(link.code, { headers: { authorization: 'Bearer garbage' } })).status).toBe(404);
    expect((await hit(`${link.code}?t=1.AAAA`)).status).toBe(404);
    const forged = link.ownerUrl.replace(/t=(\d+)\./, (_: string, n: string) => `t=${Number(n) + HOUR}.`);
    expect((await fetch(forged, { redirect: 'manual' })).status).toBe(404);

    const byBearer = await hit(link.code, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(byBearer.status).toBe(302);
    expect(byBearer.headers.get('location')).toBe('https://bank.example/statement');
    const byToken = await fetch(link.ownerUrl, { redirect: 'manual' });
    expect(byToken.status).toBe(302);

    // Another user's link is invisible to the API too.
    expectRefusal(await t.api('shortlink.query', { code: link.code }, bob.token), linksErrors.rows.linkNotFound);
    expectRefusal(await t.api('shortlink.update', { id: link.id, title: 'mine' }, bob.token), linksErrors.rows.linkNotFound);
    expectRefusal(await t.api('shortlink.delete', { id: link.id }, bob.token), linksErrors.rows.linkNotFound);

    clock.advance(link.ownerUrlExpiresAt - clock.now());
    const stale = await fetch(link.ownerUrl, { redirect: 'manual' });
    expect(stale.status).toBe(403);
    expect((await t.api('shortlink.query', { code: link.code }, alice.token)).data.accessCount).toBe(2);

    const made = await t.api('shortlink.update', { id: link.id, isPublic: true }, alice.token);
    expect(made.data.ownerUrl).toBeUndefined();
    expect((await hit(link.code)).status).toBe(302);
  });

  it('accepts only http: and https: targets without credentials', async () => {
    const { schemeNotAllowed, urlNotAbsolute, credentialsInUrl, urlReachesThisServer } = linksErrors.rows;
    const refused = [
      ['javascript:alert(1)', schemeNotAllowed],
      ['JavaScript:alert(document.domain)', schemeNotAllowed],
      ['data:text/html,<script>alert(1)</script>', schemeNotAllowed],
      ['file:///etc/passwd', schemeNotAllowed],
      ['ftp://example.com/x', schemeNotAllowed],
      ['mailto:a@example.com', schemeNotAllowed],
      ['vbscript:msgbox', schemeNotAllowed],
      ['//example.com/path', urlNotAbsolute],
      ['/relative', urlNotAbsolute],
      ['example.com', urlNotAbsolute],
      ['https://user:pass@example.com/', credentialsInUrl],
      ['https://bank.example@evil.example/', credentialsInUrl],
      ['http://', urlNotAbsolute],
      [`${t.url}/s/abcdefg`, urlReachesThisServer],
    ] as const;
    for (const [url, row] of refused) {
      expectRefusal(await t.api('shortlink.create', { url }, alice.token), row, { field: 'params.url', label: url });
    }
    const ok = await t.api('shortlink.create', { url: '  HTTP://Example.COM:8080/a b?q=1  ' }, alice.token);
    expect(ok.data.url).toBe('http://example.com:8080/a%20b?q=1');
    const idn = await t.api('shortlink.create', { url: 'https://例子.测试/路径' }, alice.token);
    expect(idn.status).toBe(200);
    const { data: link } = await t.api('shortlink.create', { url: 'https://example.com/' }, alice.token);
    expectRefusal(await t.api('shortlink.update', { id: link.id, url: 'javascript:alert(1)' }, alice.token), linksErrors.rows.schemeNotAllowed);
    expectRefusal(await t.api('shortlink.create', { url: 'https://example.com/' + 'a'.repeat(2100) }, alice.token), commonErrors.rows.invalid);
  });

  it('takes custom aliases, unique across users (409), case-sensitive', async () => {
    const mine = await t.api('shortlink.create', { url: 'https://example.com/rent', alias: 'rent-2026' }, alice.token);
    expect(mine.data.code).toBe('rent-2026');
    expect((await hit('rent-2026')).headers.get('location')).toBe('https://example.com/rent');
    const taken = await t.api('shortlink.create', { url: 'https://example.com/other', alias: 'rent-2026' }, bob.token);
    expectRefusal(taken, linksErrors.rows.aliasTaken, { field: 'params.alias' });
    expect((await t.api('shortlink.create', { url: 'https://example.com/other', alias: 'Rent-2026' }, bob.token)).status).toBe(200);
    for (const alias of ['ab', 'has space', 'a/b', 'x'.repeat(33), 'ümlaut']) {
      expectRefusal(await t.api('shortlink.create', { url: 'https://example.com/', alias }, alice.token), commonErrors.rows.invalid, { field: 'params.alias', label: alias });
    }
    const race = await Promise.all(
      Array.from({ length: 5 }, (_, i) => t.api('shortlink.create', { url: `https://example.com/${i}`, alias: 'race' }, i % 2 ? alice.token : bob.token)),
    );
    expect(race.filter((a) => a.status === 200)).toHaveLength(1);
    expect(race.filter((a) => a.status === 409)).toHaveLength(4);
  });

  it('updates fields, lists links, deletes (then 404)', async () => {
    const carol = await registerUser(t);
    const { data: link } = await t.api('shortlink.create', { url: 'https://example.com/a', title: 'A' }, carol.token);
    clock.advance(10);
    await t.api('shortlink.create', { url: 'https://example.com/b', title: 'B' }, carol.token);
    const updated = await t.api('shortlink.update', { id: link.id, title: 'A2', description: 'two' }, carol.token);
    expect(updated.data).toMatchObject({ id: link.id, code: link.code, title: 'A2', description: 'two', url: 'https://example.com/a' });
    expect(updated.data.updatedAt).toBeGreaterThanOrEqual(link.updatedAt);
    expectRefusal(await t.api('shortlink.update', { id: link.id }, carol.token), linksErrors.rows.nothingToChange);

    const list = await t.api('shortlink.list', { pageSize: 1 }, carol.token);
    expect(list.data).toMatchObject({ total: 2, page: 1, pageSize: 1 });
    expect(list.data.list[0].title).toBe('B');

    expect((await t.api('shortlink.delete', { id: link.id }, carol.token)).data).toEqual({ deleted: true, id: link.id });
    expect((await hit(link.code)).status).toBe(404);
    expectRefusal(await t.api('shortlink.query', { code: link.code }, carol.token), linksErrors.rows.linkNotFound);
    expectRefusal(await t.api('shortlink.delete', { id: link.id }, carol.token), linksErrors.rows.linkNotFound);
    expectRefusal(await t.api('shortlink.create', { url: 'https://example.com/' }), commonErrors.rows.unauthorized);
  });
});

describe('short links: guessing is rate-limited', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ settings: { links: { missesPerAddress: 5 } } });
  });
  afterAll(() => t.close());

  it('answers 429 to an address after too many misses, even for codes that exist', async () => {
    const user = await registerUser(t);
    const { data: link } = await t.api('shortlink.create', { url: 'https://example.com/' }, user.token);
    // Hits do not count towards the limit.
    for (let i = 0; i < 10; i++) expect((await t.fetch(`/s/${link.code}`, { redirect: 'manual' })).status).toBe(302);
    for (let i = 0; i < 5; i++) expect((await t.fetch(`/s/guess${i}xx`, { redirect: 'manual' })).status).toBe(404);
    const limited = await t.fetch('/s/guess5xx', { redirect: 'manual' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const existing = await t.fetch(`/s/${link.code}`, { redirect: 'manual' });
    expect(existing.status).toBe(429);
    const stats = await t.api('shortlink.query', { code: link.code }, user.token);
    expect(stats.data.accessCount).toBe(10);
  });
});

describe('short links: restart', () => {
  it('keeps links and their statistics across a restart', async () => {
    const first = await startTestServer();
    const user = await registerUser(first);
    const { data: link } = await first.api('shortlink.create', { url: 'https://example.com/' }, user.token);
    await Promise.all(Array.from({ length: 15 }, () => first.fetch(`/s/${link.code}`, { redirect: 'manual' })));
    await first.close(true);
    const second = await startTestServer({ dataDir: first.dataDir });
    try {
      const stats = await second.api('shortlink.query', { code: link.code }, user.token);
      expect(stats.data.accessCount).toBe(15);
    } finally {
      await second.close();
      rmSync(first.dataDir, { recursive: true, force: true });
    }
  });
});

describe('short links: public base URL', () => {
  it('builds short URLs on network.publicBaseUrl and refuses links to it', async () => {
    const t = await startTestServer({ settings: { network: { publicBaseUrl: 'https://pp.example.net/' } } });
    try {
      const user = await registerUser(t);
      const { data: link } = await t.api('shortlink.create', { url: 'https://example.com/', isPublic: false }, user.token);
      expect(link.shortUrl).toBe(`https://pp.example.net/s/${link.code}`);
      expect(link.ownerUrl.startsWith(`https://pp.example.net/s/${link.code}?t=`)).toBe(true);
      const loop = await t.api('shortlink.create', { url: `https://pp.example.net/s/${link.code}` }, user.token);
      expect(loop).toMatchObject({ status: 400, data: { field: 'params.url' } });
    } finally {
      await t.close();
    }
  });
});
