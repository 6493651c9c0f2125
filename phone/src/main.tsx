import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { decodePairing } from '../../server/sync/pairing-link';
import { saved } from './data/saved';
import { App } from './ui/App';
import './styles.css';

/**
 * The phone app (docs/phone.md). A pairing link opens it with `#pair=…`: the pairing is kept and the
 * fragment removed from the address and the history at once. The service worker makes it open offline.
 */
const fromLink = decodePairing(location.hash);
if (fromLink) {
  const previous = saved.pairing.get();
  if (previous?.user !== fromLink.user) saved.clear();
  saved.pairing.set(fromLink);
}
if (location.hash) history.replaceState(null, '', location.pathname + location.search);

if ('serviceWorker' in navigator) void navigator.serviceWorker.register('sw.js').catch(() => undefined);

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App initialPairing={saved.pairing.get()} />
    </StrictMode>,
  );
}
