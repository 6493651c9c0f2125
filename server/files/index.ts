import { defineDomain } from '../domain';
import { fileActions } from './actions';
import { filesErrors } from './errors';
import { fileRoutes } from './routes';
import { filesCollection, type FileDoc } from './schema';
import { FileService } from './service';
import { normalizeMediaType } from './types';

const SWEEP_EVERY_MS = 10 * 60 * 1000;

/** Receipts, statements and pictures: file.* actions, the upload URL and the file URLs. */
export function filesDomain() {
  let timer: NodeJS.Timeout | undefined;
  return defineDomain({
    name: 'files',
    needs: ['users'],
    uses: ['ledger'],
    errors: filesErrors,
    collections: [filesCollection],
    actions: fileActions,
    async start(app) {
      const files = new FileService(app);
      await files.bytes.init();
      app.services.files = files;
      const unsupported = app.settings.get().files.allowedTypes.filter((t) => !files.allowedTypes().includes(normalizeMediaType(t)));
      if (unsupported.length) app.log.warn('settings files.allowedTypes lists types PennyPost does not accept; ignored', { types: unsupported.join(', ') });
      await files.sweep(true);
      timer = setInterval(() => void files.sweep(false).catch((error: unknown) => app.log.warn('file sweep failed', { error: String(error) })), SWEEP_EVERY_MS);
      timer.unref();
    },
    routes: fileRoutes,
    async forgetUser(app, userId) {
      const docs = await app.db.collection<FileDoc>('files').find({ selector: { userId } }).exec();
      for (const doc of docs) await app.services.files.bytes.remove(doc.id);
    },
    stop() {
      if (timer) clearInterval(timer);
    },
  });
}
