/*
 * PennyPost's service worker (docs/ui.md "Phones and narrow windows"): when the server cannot be
 * reached, opening or reloading a page shows PennyPost's own "not reachable" page (offline.html)
 * instead of the browser's error page.
 *
 * - It answers only navigations (and the offline page's own files); every other request, /api
 *   above all, goes to the network untouched. Nothing the server answers is ever stored.
 * - Navigations go to the network first; the offline page only when the network fails, so a new
 *   build is always what loads. The cache holds only the offline page, its stylesheet, script
 *   and icon, refreshed from the server whenever the worker starts again after a navigation.
 * - A new sw.js takes over at once (skipWaiting, clients.claim) and drops older caches.
 */
const CACHE = 'pennypost-offline-v1';
const SHELL = ['/offline.html', '/offline.css', '/offline.js', '/icon-192.png'];

const fillCache = async () => {
  const cache = await caches.open(CACHE);
  await cache.addAll(SHELL.map((url) => new Request(url, { cache: 'no-cache' })));
};

self.addEventListener('install', (event) => {
  event.waitUntil(fillCache().then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name !== CACHE).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

let refreshed = false;

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === 'navigate') {
    event.respondWith(
      fetch(request).then(
        (response) => {
          if (!refreshed && response.ok) {
            refreshed = true;
            event.waitUntil(fillCache().catch(() => undefined));
          }
          return response;
        },
        async () => (await caches.match('/offline.html', { cacheName: CACHE })) || Response.error(),
      ),
    );
    return;
  }
  if (SHELL.includes(url.pathname)) {
    event.respondWith(fetch(request).catch(async () => (await caches.match(url.pathname, { cacheName: CACHE })) || Response.error()));
  }
});
