import { useEffect, useSyncExternalStore } from 'react';
import { call, getToken, type ResultOf } from '../api/client';

/**
 * One message of the desktop push feed: from the history when the feed opens (push.recentFeed),
 * then live (GET /events/push, server-sent events, same shape). `html` is the server's sanitised
 * rendering of the Markdown `desp`.
 */
export type FeedMessage = ResultOf<'push.recentFeed'>['list'][number];

type FeedStatus = 'connecting' | 'live' | 'offline';
const MAX_ITEMS = 100;
let items: FeedMessage[] = [];
let status: FeedStatus = 'offline';
const listeners = new Set<() => void>();
const messageHandlers = new Set<(message: FeedMessage) => void>();
function emit() {
  for (const listener of listeners) listener();
}
function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
export function useFeed(): { items: FeedMessage[]; status: FeedStatus } {
  const list = useSyncExternalStore(subscribe, () => items);
  const state = useSyncExternalStore(subscribe, () => status);
  return { items: list, status: state };
}
export function onFeedMessage(handler: (message: FeedMessage) => void): () => void {
  messageHandlers.add(handler);
  return () => messageHandlers.delete(handler);
}

const changeHandlers = new Set<(topic: string) => void>();
/**
 * The server's "your data changed" notices on the same stream (`event: change`, `{topic}`; today
 * `inbox`: a forwarded notice made a draft or a record), so screens read again at once.
 */
export function onDataChange(handler: (topic: string) => void): () => void {
  changeHandlers.add(handler);
  return () => changeHandlers.delete(handler);
}

function setStatus(next: FeedStatus) {
  if (status !== next) {
    status = next;
    emit();
  }
}

/**
 * Reads the feed with fetch() (so the token travels in the Authorization header, not the URL),
 * parses the event stream and reconnects with Last-Event-ID after a drop.
 */
async function readFeed(signal: AbortSignal, lastId: { value: string }): Promise<'auth' | 'dropped'> {
  const token = getToken();
  if (!token) return 'auth';
  const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' };
  if (lastId.value) headers['Last-Event-ID'] = lastId.value;
  const response = await fetch('/events/push', { headers, signal, cache: 'no-store' });
  // 403: the account was disabled or must choose a new password first; retrying will not help.
  if (response.status === 401 || response.status === 403 || response.status === 404) return 'auth';
  if (!response.ok || !response.body) return 'dropped';
  setStatus('live');
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return 'dropped';
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      let data = '';
      let id = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data += line.slice(5).trim();
        else if (line.startsWith('id:')) id = line.slice(3).trim();
      }
      if (event === 'change' && data) {
        try {
          const { topic } = JSON.parse(data) as { topic?: unknown };
          if (typeof topic === 'string') for (const handler of changeHandlers) handler(topic);
        } catch {
          /* a malformed notice is skipped */
        }
        continue;
      }
      if (event !== 'push' || !data) continue;
      try {
        const message = JSON.parse(data) as FeedMessage;
        if (id) lastId.value = id;
        // A replayed event (after a reconnect, or one the history already had) is shown once and not announced again.
        if (!items.some((m) => m.id === message.id)) {
          items = [message, ...items].slice(0, MAX_ITEMS);
          emit();
          for (const handler of messageHandlers) handler(message);
        }
      } catch {
        /* a malformed event is skipped */
      }
    }
  }
}

/**
 * What was delivered before this window opened: the newest desktop pushes from the history. The
 * stream then starts after the newest of them (Last-Event-ID), so the server replays what arrived
 * in between; ids already shown are skipped. Without the history (an older server, a network
 * error) the feed starts empty and live, as before.
 */
async function loadHistory(lastId: { value: string }): Promise<void> {
  try {
    const { list } = await call('push.recentFeed', { limit: MAX_ITEMS });
    const known = new Set(items.map((m) => m.id));
    items = [...items, ...list.filter((m) => !known.has(m.id))].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1)).slice(0, MAX_ITEMS);
    const newest = list.at(0);
    if (newest && !lastId.value) lastId.value = newest.id;
    emit();
  } catch {
    /* the live stream alone */
  }
}

/** Keeps the feed connected while signed in. */
export function usePushFeedConnection(token: string | null): void {
  useEffect(() => {
    if (!token) return;
    items = [];
    emit();
    const controller = new AbortController();
    const lastId = { value: '' };
    let attempt = 0;
    // A call, not a property read: the signal is aborted from outside while the loop awaits.
    const stopped = () => controller.signal.aborted;
    const loop = async () => {
      await loadHistory(lastId);
      while (!stopped()) {
        setStatus('connecting');
        let outcome: 'auth' | 'dropped' = 'dropped';
        try {
          outcome = await readFeed(controller.signal, lastId);
          attempt = 0;
        } catch {
          attempt++;
        }
        if (stopped() || outcome === 'auth') break;
        setStatus('offline');
        await new Promise((resolve) => window.setTimeout(resolve, Math.min(30_000, 1000 * 2 ** Math.min(attempt, 5))));
      }
      setStatus('offline');
    };
    void loop();
    return () => controller.abort();
  }, [token]);
}

/**
 * The message body as plain text (toasts and system notifications): the server's sanitised HTML
 * parsed by an inert DOMParser document (no script runs, nothing loads), its text with the
 * Markdown marks gone and whitespace collapsed.
 */
export function feedText(message: Pick<FeedMessage, 'html' | 'desp'>, max: number): string {
  const text = message.html ? new DOMParser().parseFromString(message.html, 'text/html').body.textContent : message.desp;
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
