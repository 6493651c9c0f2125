import { useEffect } from 'react';
import { call } from '../api/client';

/** The browser's IANA time zone. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

const SENT = 'pennypost.timeZoneSent';

/**
 * Tells the server the person's time zone once per account and zone (user.setTimeZone): what the
 * server shows or reads with no viewer to ask — a notice forwarded to the inbox, a message page,
 * an export's name — then uses the person's wall clock, not the server's (docs/ui.md, "Times").
 */
export function useTimeZoneSync(userId: string | undefined): void {
  useEffect(() => {
    if (!userId) return;
    const zone = browserTimeZone();
    const key = `${SENT}:${userId}`;
    if (localStorage.getItem(key) === zone) return;
    call('user.setTimeZone', { timeZone: zone }).then(
      () => localStorage.setItem(key, zone),
      () => undefined, // tried again at the next start
    );
  }, [userId]);
}
