import { decodePairing, encodePairing, type Pairing } from '../../../server/sync/pairing-link';

/**
 * What the phone app keeps in localStorage besides the ledger (which is in IndexedDB): the pairing,
 * the changes still waiting for CouchDB, the time of the last sync, whether the phone was
 * unpaired, and the first screen's figures (shown at once on the next open, before the ledger is read).
 */

const KEY = 'pennypost-phone:';

function slot<T>(name: string, fallback: T, read: (value: unknown) => T | null = (v) => v as T) {
  return {
    get(): T {
      try {
        const text = localStorage.getItem(KEY + name);
        return text === null ? fallback : (read(JSON.parse(text)) ?? fallback);
      } catch {
        return fallback;
      }
    },
    set(value: T): void {
      localStorage.setItem(KEY + name, JSON.stringify(value));
    },
  };
}

export const saved = {
  /** The pairing, kept as the link's own code. */
  pairing: {
    get: (): Pairing | null => decodePairing(slot<string>('pairing', '').get()),
    set: (pairing: Pairing): void => slot<string>('pairing', '').set(encodePairing('', pairing)),
  },
  pending: slot<string[]>('pending', [], (v) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : null)),
  lastSyncAt: slot<number | null>('lastSyncAt', null, (v) => (typeof v === 'number' ? v : null)),
  revoked: slot<boolean>('revoked', false, (v) => v === true),
  summary: slot<unknown>('summary', null),
  /** The asset the last record was saved on: the next one starts there. */
  lastAsset: slot<string>('lastAsset', ''),
  clear(): void {
    for (const key of Object.keys(localStorage)) if (key.startsWith(KEY)) localStorage.removeItem(key);
  },
};
