import type { AppContext, ServiceMap } from '../server/app-context';
import type { MessageDoc } from '../server/push/schema';

export interface LastPush {
  title: string;
  appName: string;
  status: string;
  at: number;
}

function toLastPush(doc: Pick<MessageDoc, 'title' | 'appName' | 'status' | 'createdAt'>): LastPush {
  return { title: doc.title, appName: doc.appName, status: doc.status, at: doc.createdAt };
}

/**
 * Follows the push history (the push service's `history.followNewest`) and reports the newest
 * push of any user to `onPush` — the tray's "last push" line. Returns unsubscribe.
 */
export function watchLastPush(app: Pick<AppContext, 'services'>, onPush: (push: LastPush) => void): () => void {
  const push = (app.services as Partial<ServiceMap>).push;
  if (!push) return () => undefined; // no push domain in this build
  let newest = 0;
  return push.history.followNewest((message) => {
    const last = toLastPush(message);
    if (last.at >= newest) {
      newest = last.at;
      onPush(last);
    }
  });
}
