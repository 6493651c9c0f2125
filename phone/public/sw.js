/*
 * The phone app's service worker (docs/phone.md, "Offline"): the app opens with no network at all.
 * - Install: the page and everything it loads (read from index.html: hashed, immutable files) are cached.
 * - The page itself: the cached copy at once, refreshed in the background (a new version shows on the next open).
 * - Everything else of this origin: from the cache, else the network (and kept).
 * Requests to other origins (the person's CouchDB) never pass through the cache.
 */
const CACHE = 'pennypost-phone';
const PAGE = new URL('./', self.registration.scope).href;

async function precache() {
  const cache = await caches.open(CACHE);
  const page = await fetch(PAGE, { cache: 'no-store' });
  if (!page.ok) throw new Error(`the app page answered ${page.status}`);
  const html = await page.clone().text();
  const files = new Set(['manifest.webmanifest', 'icon-192.png', 'icon-512.png', 'favicon.ico']);
  for (const [, file] of html.matchAll(/(?:src|href)="\.?\/?([^"#?]+)"/g)) files.add(file);
  await cache.put(PAGE, page);
  await cache.addAll([...files].map((file) => new URL(file, PAGE).href));
}

self.addEventListener('install', (event) => {
  event.waitUntil(precache().then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || !request.url.startsWith(self.registration.scope)) return;
  if (request.mode === 'navigate') {
    event.respondWith(
      caches.open(CACHE).then(async (cache) => {
        const cached = await cache.match(PAGE);
        const fresh = fetch(PAGE, { cache: 'no-store' })
          .then((answer) => {
            if (answer.ok) void cache.put(PAGE, answer.clone());
            return answer;
          })
          .catch(() => undefined);
        if (cached) {
          event.waitUntil(fresh);
          return cached;
        }
        return (await fresh) ?? new Response('PennyPost is offline and this app was not opened here before.', { status: 503 });
      }),
    );
    return;
  }
  event.respondWith(
    caches.open(CACHE).then(async (cache) => {
      const cached = await cache.match(request, { ignoreSearch: true });
      if (cached) return cached;
      const answer = await fetch(request);
      if (answer.ok) void cache.put(request, answer.clone());
      return answer;
    }),
  );
});
