import { useEffect, useState } from 'react';
import type { SyncState } from '../data/phone-db';
import type { Wording } from '../i18n';

/** "Offline · 3 changes waiting", "Synced 2 min ago": where the phone's copy stands. */
export function StatusLine({ sync, w }: { sync: SyncState | null; w: Wording }) {
  const [, tick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => tick((n) => n + 1), 30_000);
    return () => clearInterval(timer);
  }, []);
  if (!sync) return null;
  if (sync.revoked) {
    return (
      <div className="status status-revoked" role="alert" data-testid="sync-status">
        {w.t('revoked')}
      </div>
    );
  }
  const parts: string[] = [];
  if (!sync.online) parts.push(w.t('offline'));
  if (sync.pending > 0) parts.push(sync.pending === 1 ? w.t('waitingOne') : w.t('waiting', { n: sync.pending }));
  if (sync.online && sync.pending === 0) parts.push(sync.lastSyncAt === null ? w.t('syncing') : w.t('syncedAgo', { ago: w.ago(sync.lastSyncAt) }));
  if (sync.online && sync.pending > 0) parts.push(w.t('syncing'));
  // A sync error in words (a database missing on CouchDB, a refused change), until the next answer clears it.
  if (sync.online && sync.error) parts.push(w.t(sync.error === 'push' ? 'errorPush' : 'errorPull'));
  return (
    <div className={`status ${sync.online ? '' : 'status-offline'}`} role="status" aria-live="polite" data-testid="sync-status">
      {parts.join(' · ')}
    </div>
  );
}
