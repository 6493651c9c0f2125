import { useEffect, useSyncExternalStore } from 'react';
import { getToken } from '../api/client';

/** One message of the desktop push feed (GET /events/push, server-sent events). */
export interface FeedMessage {
  id: string;
  appId: string;
  appName: string;
  title: string;
  desp: string;
  url: string;
  createdAt: number;
}

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
      if (event !== 'push' || !data) continue;
      try {
        const message = JSON.parse(data) as FeedMessage;
        if (id) lastId.value = id;
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
