/**
 * Registers the service worker (renderer/public/sw.js) that shows PennyPost's own "not reachable"
 * page when the server cannot be reached (docs/ui.md "Phones and narrow windows"). It caches only
 * that page and its two files, never an /api answer or the app itself. Browsers allow service
 * workers only in a secure context (https, or http on localhost/127.0.0.1 — the desktop window
 * included); elsewhere, e.g. plain http on a LAN address, this does nothing.
 */
export function registerServiceWorker(): void {
  if (!('serviceWorker' in navigator) || !window.isSecureContext || !/^https?:$/.test(location.protocol)) return;
  const register = () => {
    navigator.serviceWorker.register('/sw.js', { scope: '/', updateViaCache: 'none' }).catch(() => {
      // Not essential: the app works the same without it (only the offline page is missing).
    });
  };
  if (document.readyState === 'complete') register();
  else window.addEventListener('load', register, { once: true });
}
