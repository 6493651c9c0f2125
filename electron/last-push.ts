import type { AppContext } from '../server/app-context';

export interface LastPush {
  title: string;
  appName: string;
  status: string;
  at: number;
}

interface MessageLike {
  title?: unknown;
  appName?: unknown;
  status?: unknown;
  createdAt?: unknown;
}

function toLastPush(doc: MessageLike | null | undefined): LastPush | null {
  if (!doc || typeof doc.createdAt !== 'number') return null;
  return {
    title: typeof doc.title === 'string' ? doc.title : '',
    appName: typeof doc.appName === 'string' ? doc.appName : '',
    status: typeof doc.status === 'string' ? doc.status : '',
    at: doc.createdAt,
  };
}

/**
 * Follows the push history (collection push_messages of the push domain, read only) and reports
 * the newest push of any user to `onPush` — the tray's "last push" line. Returns unsubscribe.
 */
export function watchLastPush(app: Pick<AppContext, 'db'>, onPush: (push: LastPush) => void): () => void {
  let newest = 0;
  const offer = (push: LastPush | null) => {
    if (push && push.at >= newest) {
      newest = push.at;
      onPush(push);
    }
  };
  let collection;
  try {
    collection = app.db.collection<MessageLike>('push_messages');
  } catch {
    return () => undefined; // no push domain in this build
  }
  if (!collection) return () => undefined;
  // Ids are time-ordered (newId), so the newest is the last one by primary key.
  collection
    .findOne({ selector: {}, sort: [{ id: 'desc' } as never] })
    .exec()
    .then((doc) => offer(toLastPush(doc?.toJSON() as MessageLike | undefined)))
    .catch(() => undefined);
  const subscription = collection.$.subscribe((event) => {
    if (event.operation === 'DELETE') return;
    offer(toLastPush(event.documentData as MessageLike));
  });
  return () => subscription.unsubscribe();
}
