import path from 'node:path';
import type { Request, Response, Router } from 'express';
import type { AppContext } from '../app-context';
import { envelope, sendEnvelope } from '../http/envelope';
import { route } from '../http/route';
import { DomainError } from '../lib/errors';
import { filesErrors } from './errors';
import { FILE_ID_PATTERN, UploadAborted } from './store';
import { typeInfo, type FileTypeInfo } from './types';

/** Bodies of refused uploads up to this size are read to the end so the connection can be reused. */
const DRAIN_LIMIT = 1024 * 1024;

/** RFC 6266 Content-Disposition with an ASCII fallback and the UTF-8 name; the extension follows the stored type. */
export function contentDisposition(kind: 'inline' | 'attachment', fileName: string, info: FileTypeInfo): string {
  const ext = path.extname(fileName).slice(1).toLowerCase();
  const name = info.extensions.includes(ext) ? fileName : `${fileName}.${info.extensions.at(0) ?? ''}`;
  // The point is to replace control characters (and all non-ASCII) in the fallback name.
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\%]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** Reads the rest of a small refused body (keeps the connection usable); large ones close the connection instead. */
async function settleBody(req: Request, res: Response, contentLength: number | null): Promise<void> {
  if (req.complete || req.readableEnded) return;
  if (contentLength !== null && contentLength <= DRAIN_LIMIT) {
    await new Promise<void>((resolve) => {
      req.once('end', resolve);
      req.once('error', () => resolve());
      req.once('close', () => resolve());
      req.resume();
    });
    return;
  }
  res.set('Connection', 'close');
}

/** GET /files/{fileId} (bytes) and PUT /files/{fileId}/upload?expires&sig (the upload URL). */
export function fileRoutes(router: Router, app: AppContext): void {
  router.put(
    '/files/:fileId/upload',
    route(app, {
      name: 'file upload',
      crashMessage: (requestId) => `Internal error; nothing was kept. Quote request id ${requestId} when reporting it.`,
      async handler({ req, res, logFields }) {
        const fileId = String(req.params.fileId);
        logFields.fileId = fileId;
        const header = req.headers['content-length'];
        const contentLength = header === undefined ? null : Number(header);
        let view;
        try {
          view = await app.services.files.receiveUpload(fileId, Number(req.query.expires), req.query.sig, req, contentLength);
        } catch (error) {
          if (error instanceof UploadAborted) {
            app.log.debug('file upload aborted by the client', { fileId });
            if (!res.headersSent) res.destroy();
            return;
          }
          // A refusal: the rest of a small body is read first, so the connection stays usable.
          if (error instanceof DomainError) await settleBody(req, res, contentLength);
          else res.set('Connection', 'close');
          throw error;
        }
        sendEnvelope(res, 200, envelope(200, 'ok', view));
      },
    }),
  );

  router.get(
    '/files/:fileId',
    route(app, {
      name: 'file bytes',
      auth: {
        mode: 'optional',
        authenticator: (current) => current.services.users,
        missing: 'Sign in first: send "Authorization: Bearer <token>", or use the signedUrl from file.query.',
      },
      async handler(ctx) {
        const { req, res } = ctx;
        const files = app.services.files;
        const fileId = String(req.params.fileId);
        if (!FILE_ID_PATTERN.test(fileId)) throw filesErrors.fileNotFound(); // also for ids that exist but are not the caller's
        let userId: string | null = null;
        let signedUntil: number | null = null;
        if (req.query.sig !== undefined) {
          const expires = Number(req.query.expires);
          if (!files.verifyViewSignature(fileId, expires, req.query.sig)) {
            throw filesErrors.fileLinkInvalid();
          }
          if (app.clock.now() >= expires) {
            throw filesErrors.fileLinkExpired(expires).with({ expiredAt: expires });
          }
          signedUntil = expires;
        } else {
          userId = (await ctx.signIn()).user.id;
        }
        const doc = await files.findServable(fileId, userId);
        if (!doc) throw filesErrors.fileNotFound();
        const size = await files.bytes.sizeOf(fileId);
        if (size === null || size !== doc.fileSize) {
          // 410 with 5001: the metadata is there but the bytes are not (docs/files-and-links.md, "Missing bytes").
          throw filesErrors.bytesNotHere(doc.fileName, size !== null).with({ fileId, missing: true });
        }
        const info = typeInfo(doc.fileType);
        const contentType = info?.detect === 'text' ? `${doc.fileType}; charset=${doc.textEncoding || 'utf-8'}` : doc.fileType;
        const disposition = info?.disposition ?? 'attachment';
        res.set({
          'Content-Type': contentType,
          'X-Content-Type-Options': 'nosniff',
          'Content-Disposition': contentDisposition(disposition, doc.fileName, info ?? { mime: doc.fileType, detect: [], extensions: ['bin'], disposition }),
          // Even if a browser treated the bytes as a page, nothing in it could run or load.
          'Content-Security-Policy': "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox",
          'Cache-Control': signedUntil === null ? 'private, no-cache' : `private, max-age=${Math.max(0, Math.floor((signedUntil - app.clock.now()) / 1000))}`,
        });
        await new Promise<void>((resolve, reject) => {
          res.sendFile(files.bytes.pathOf(fileId), { dotfiles: 'deny', lastModified: false, cacheControl: false, acceptRanges: true }, (error) => {
            if (!error) resolve();
            else if (res.headersSent) {
              res.destroy();
              resolve();
            } else {
              res.removeHeader('Content-Disposition');
              reject(filesErrors.bytesUnreadable(doc.fileName).with({ fileId, missing: true }));
            }
          });
        });
      },
    }),
  );
}
