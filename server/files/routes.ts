import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Request, Response, Router } from 'express';
import type { AppContext } from '../app-context';
import { ApiError, envelope, ErrorCode, httpStatusOf } from '../api/errors';
import { DomainError } from '../lib/errors';
import { describeError } from '../lib/logger';
import { UploadRefusal } from './service';
import { FILE_ID_PATTERN, UploadAborted } from './store';
import { typeInfo, type FileTypeInfo } from './types';

/** Bodies of refused uploads up to this size are read to the end so the connection can be reused. */
const DRAIN_LIMIT = 1024 * 1024;

function answer(res: Response, status: number, code: number, message: string, data: unknown = null): void {
  res.set({ 'Cache-Control': 'no-store', 'Content-Type': 'application/json; charset=utf-8' }).status(status).json(envelope(code, message, data));
}

function bearerToken(req: Request): string | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : '';
}

/** RFC 6266 Content-Disposition with an ASCII fallback and the UTF-8 name; the extension follows the stored type. */
export function contentDisposition(kind: 'inline' | 'attachment', fileName: string, info: FileTypeInfo): string {
  const ext = path.extname(fileName).slice(1).toLowerCase();
  const name = info.extensions.includes(ext) ? fileName : `${fileName}.${info.extensions[0]}`;
  // eslint-disable-next-line no-control-regex
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
  router.put('/files/:fileId/upload', async (req: Request, res: Response) => {
    const files = app.services.files;
    const fileId = String(req.params.fileId);
    const header = req.headers['content-length'];
    const contentLength = header === undefined ? null : Number(header);
    try {
      const view = await files.receiveUpload(fileId, Number(req.query.expires), req.query.sig, req, contentLength);
      answer(res, 200, ErrorCode.Ok, 'ok', view);
    } catch (error) {
      if (error instanceof UploadAborted) {
        app.log.debug('file upload aborted by the client', { fileId });
        if (!res.headersSent) res.destroy();
        return;
      }
      if (error instanceof UploadRefusal) {
        await settleBody(req, res, contentLength);
        answer(res, error.status, error.code, error.message, error.details);
        return;
      }
      const requestId = randomUUID();
      app.log.error('file upload failed', { requestId, fileId, ...describeError(error) });
      res.set('Connection', 'close');
      answer(res, 500, ErrorCode.Internal, `Internal error; nothing was kept. Quote request id ${requestId} when reporting it.`, { requestId });
    }
  });

  router.get('/files/:fileId', async (req: Request, res: Response) => {
    const files = app.services.files;
    const fileId = String(req.params.fileId);
    if (!FILE_ID_PATTERN.test(fileId)) {
      answer(res, 404, ErrorCode.FileNotFound, 'This file does not exist.');
      return;
    }
    let userId: string | null = null;
    let signedUntil: number | null = null;
    if (req.query.sig !== undefined) {
      const expires = Number(req.query.expires);
      if (!files.verifyViewSignature(fileId, expires, req.query.sig)) {
        answer(res, 403, ErrorCode.Forbidden, 'This file link is not valid: it was altered, or it belongs to another PennyPost.');
        return;
      }
      if (app.clock.now() >= expires) {
        answer(res, 403, ErrorCode.Forbidden, `This file link expired at ${new Date(expires).toISOString()}. Ask the app for a fresh one (file.query).`, {
          expiredAt: expires,
        });
        return;
      }
      signedUntil = expires;
    } else {
      const token = bearerToken(req);
      if (!token) {
        answer(res, 401, ErrorCode.Unauthorized, 'Sign in first: send "Authorization: Bearer <token>", or use the signedUrl from file.query.');
        return;
      }
      try {
        const users = app.services.users;
        userId = (await users.authenticate(token)).user.id;
      } catch (error) {
        if (error instanceof DomainError) {
          answer(res, httpStatusOf(error.code), error.code, error.message, error.details);
          return;
        }
        throw error;
      }
    }
    const doc = await files.findServable(fileId, userId);
    if (!doc) {
      answer(res, 404, ErrorCode.FileNotFound, 'This file does not exist.');
      return;
    }
    const size = await files.bytes.sizeOf(fileId);
    if (size === null || size !== doc.fileSize) {
      const what = size === null ? 'are missing from' : 'are damaged in';
      answer(
        res,
        410,
        ErrorCode.FileNotFound,
        `The bytes of "${doc.fileName}" ${what} this computer's data folder (it may have been added on another device, or restored from an incomplete backup). Upload it again.`,
        { fileId, missing: true },
      );
      return;
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
      'Cache-Control':
        signedUntil === null ? 'private, no-cache' : `private, max-age=${Math.max(0, Math.floor((signedUntil - app.clock.now()) / 1000))}`,
    });
    res.sendFile(files.bytes.pathOf(fileId), { dotfiles: 'deny', lastModified: false, cacheControl: false, acceptRanges: true }, (error) => {
      if (!error) return;
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.removeHeader('Content-Disposition');
      answer(res, 410, ErrorCode.FileNotFound, `The bytes of "${doc.fileName}" could not be read from this computer's data folder.`, {
        fileId,
        missing: true,
      });
    });
  });
}
