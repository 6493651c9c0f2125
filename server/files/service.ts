import { readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { RxCollection } from 'rxdb';
import type { AppContext } from '../app-context';
import { ApiError, ErrorCode } from '../api/errors';
import { DomainError } from '../lib/errors';
import { newId } from '../lib/ids';
import { KeyedMutex } from '../lib/keyed-mutex';
import type { FileDoc } from './schema';
import { Signer } from './signing';
import { ByteStore, FILE_ID_PATTERN, UploadAborted, UploadTooLong } from './store';
import { checkText, normalizeMediaType, SUPPORTED_TYPES, typeInfo } from './types';

/** A file as the API shows it. */
export interface FileView {
  fileId: string;
  fileName: string;
  fileType: string;
  fileSize: number;
  category: string;
  /** Serves the bytes to the owner (Authorization: Bearer). */
  url: string;
  /** Same bytes without a header, for <img src>; stops working at signedUrlExpiresAt. */
  signedUrl: string;
  signedUrlExpiresAt: number;
  /** True when the metadata exists but the bytes are not in this data dir. */
  missing: boolean;
  createdAt: number;
  updatedAt: number;
}

/** What the ledger shows next to a record for each attached file id. */
export interface AttachmentView {
  fileId: string;
  fileName: string;
  fileType: string;
  fileSize: number;
  category: string;
  url: string;
  signedUrl: string;
  missing: boolean;
}

export interface UploadTicket {
  fileId: string;
  url: string;
  uploadUrl: string;
  uploadExpiresAt: number;
  maxBytes: number;
}

/** The answer of a refused or failed byte upload: envelope code, HTTP status, message. */
export class UploadRefusal extends DomainError {}

const DEFAULT_CATEGORY = 'other';

function mib(bytes: number): string {
  const value = bytes / (1024 * 1024);
  return `${Number.isInteger(value) ? value : value.toFixed(1)} MiB`;
}

/** Receipts, statements and pictures: metadata in RxDB, bytes in <dataDir>/files. app.services.files. */
export class FileService {
  readonly bytes: ByteStore;
  private readonly signer: Signer;
  /** One upload, sweep or delete at a time per file id. */
  private readonly locks = new KeyedMutex();

  constructor(private readonly app: AppContext) {
    this.bytes = new ByteStore(app.dataDir);
    this.signer = new Signer(app.secrets.get('files-signing'));
  }

  private get files(): RxCollection<FileDoc> {
    return this.app.db.collection<FileDoc>('files');
  }

  private get settings() {
    return this.app.settings.get().files;
  }

  /** Allowed media types: the settings list, minus entries PennyPost does not support. */
  allowedTypes(): string[] {
    const supported = new Set(SUPPORTED_TYPES.map((t) => t.mime));
    return [...new Set(this.settings.allowedTypes.map(normalizeMediaType))].filter((t) => supported.has(t));
  }

  /**
   * File URLs are paths on this server ("/files/<id>…"), to be resolved against the address the
   * client itself uses: the desktop window (same origin), a phone on the LAN and a local script
   * reach this server under different names, and the files are only ever for the owner's own clients.
   */
  private fileUrl(fileId: string): string {
    return `/files/${fileId}`;
  }

  /** A view link valid for settings files.signedUrlSeconds, rounded so a page of links shares one expiry. */
  signedUrl(fileId: string): { signedUrl: string; signedUrlExpiresAt: number } {
    const lifetime = this.settings.signedUrlSeconds * 1000;
    // Round up to the minute: repeated queries give the same URL, so browsers can cache images.
    const expiresAt = Math.ceil((this.app.clock.now() + lifetime) / 60_000) * 60_000;
    const sig = this.signer.sign('view', fileId, expiresAt);
    return { signedUrl: `${this.fileUrl(fileId)}?expires=${expiresAt}&sig=${sig}`, signedUrlExpiresAt: expiresAt };
  }

  verifyViewSignature(fileId: string, expires: number, sig: unknown): boolean {
    return this.signer.verify('view', fileId, expires, sig);
  }

  verifyUploadSignature(fileId: string, expires: number, sig: unknown): boolean {
    return this.signer.verify('upload', fileId, expires, sig);
  }

  private async view(doc: FileDoc): Promise<FileView> {
    const size = await this.bytes.sizeOf(doc.id);
    return {
      fileId: doc.id,
      fileName: doc.fileName,
      fileType: doc.fileType,
      fileSize: doc.fileSize,
      category: doc.category,
      url: this.fileUrl(doc.id),
      ...this.signedUrl(doc.id),
      missing: size === null,
      createdAt: doc.createdAt,
      updatedAt: doc.updatedAt,
    };
  }

  /** The type check shared by file.upload and the byte upload (5003). */
  private assertTypeAllowed(declared: string): string {
    const mime = normalizeMediaType(declared);
    const allowed = this.allowedTypes();
    if (!allowed.includes(mime)) {
      const reason = typeInfo(mime) ? 'is turned off in the settings (files.allowedTypes)' : 'is not accepted';
      throw new ApiError(ErrorCode.InvalidFileType, `The file type "${declared}" ${reason}. Accepted types: ${allowed.join(', ')}.`, {
        allowedTypes: allowed,
      });
    }
    return mime;
  }

  /** The size check shared by file.upload and the byte upload (5002). */
  private assertSizeAllowed(size: number): void {
    const max = this.settings.maxBytes;
    if (size > max) {
      throw new ApiError(ErrorCode.FileTooLarge, `The file is ${mib(size)}; the largest accepted file is ${mib(max)} (${max} bytes).`, { maxBytes: max });
    }
  }

  /** file.upload: records the metadata (pending) and hands out the single-use upload URL. */
  async createUpload(
    userId: string,
    input: { fileName: string; fileType: string; fileSize: number; category?: string },
  ): Promise<UploadTicket> {
    const fileType = this.assertTypeAllowed(input.fileType);
    this.assertSizeAllowed(input.fileSize);
    const now = this.app.clock.now();
    const uploadExpiresAt = now + this.settings.uploadUrlSeconds * 1000;
    const doc: FileDoc = {
      id: newId(now),
      userId,
      fileName: input.fileName,
      fileType,
      fileSize: input.fileSize,
      category: input.category || DEFAULT_CATEGORY,
      status: 'pending',
      uploadExpiresAt,
      textEncoding: '',
      sha256: '',
      createdAt: now,
      updatedAt: now,
    };
    await this.files.insert(doc);
    const sig = this.signer.sign('upload', doc.id, uploadExpiresAt);
    return {
      fileId: doc.id,
      url: this.fileUrl(doc.id),
      uploadUrl: `${this.fileUrl(doc.id)}/upload?expires=${uploadExpiresAt}&sig=${sig}`,
      uploadExpiresAt,
      maxBytes: this.settings.maxBytes,
    };
  }

  private async findDoc(fileId: string): Promise<FileDoc | null> {
    if (!FILE_ID_PATTERN.test(fileId)) return null;
    const doc = await this.files.findOne(fileId).exec();
    return doc ? (doc.toJSON() as FileDoc) : null;
  }

  /** The user's file (any status), or null — another user's file is null as well. */
  async findOwned(userId: string, fileId: string): Promise<FileDoc | null> {
    const doc = await this.findDoc(fileId);
    return doc && doc.userId === userId ? doc : null;
  }

  /** A ready file to serve, or null. */
  async findServable(fileId: string, userId: string | null): Promise<FileDoc | null> {
    const doc = await this.findDoc(fileId);
    if (!doc || doc.status !== 'ready') return null;
    if (userId !== null && doc.userId !== userId) return null;
    return doc;
  }

  private async removeDoc(fileId: string): Promise<void> {
    const doc = await this.files.findOne(fileId).exec();
    if (doc) await doc.remove();
  }

  /**
   * PUT uploadUrl: receives, checks and stores the bytes. Any refusal removes the pending file
   * (metadata and bytes): the client starts again with file.upload. A client that goes away
   * mid-body keeps its pending file and may retry the same URL until it expires.
   */
  async receiveUpload(fileId: string, expires: number, sig: unknown, body: Readable, contentLength: number | null): Promise<FileView> {
    if (!FILE_ID_PATTERN.test(fileId) || !this.verifyUploadSignature(fileId, expires, sig)) {
      throw new UploadRefusal(ErrorCode.Forbidden, 403, 'This upload URL is not valid: it was altered, or it belongs to another PennyPost.');
    }
    return this.locks.run(fileId, async () => {
      const doc = await this.findDoc(fileId);
      if (!doc) {
        throw new UploadRefusal(
          ErrorCode.FileNotFound,
          404,
          'This file does not exist any more (it was deleted, or an earlier upload to this URL was refused). Call file.upload again.',
        );
      }
      if (doc.status === 'ready') {
        throw new UploadRefusal(ErrorCode.Gone, 410, 'This upload URL was already used: the file is stored. Call file.upload for a new file.');
      }
      if (doc.uploadExpiresAt !== expires) {
        throw new UploadRefusal(ErrorCode.Forbidden, 403, 'This upload URL is not valid for this file.');
      }
      if (this.app.clock.now() >= expires) {
        await this.removeDoc(fileId);
        throw new UploadRefusal(ErrorCode.Gone, 410, `This upload URL expired at ${new Date(expires).toISOString()}. Call file.upload again.`, {
          expiredAt: expires,
        });
      }
      // From here on every refusal removes the pending file: nothing is kept.
      const refuse = async (error: DomainError): Promise<never> => {
        await this.removeDoc(fileId);
        if (error instanceof UploadRefusal) throw error;
        throw new UploadRefusal(error.code, error.status, error.message, error.details);
      };
      try {
        this.assertTypeAllowed(doc.fileType);
        this.assertSizeAllowed(doc.fileSize);
      } catch (error) {
        return refuse(error as DomainError);
      }
      const sizeLie = (actual: number | string) =>
        new UploadRefusal(
          ErrorCode.Validation,
          400,
          `The upload has ${actual} bytes but file.upload declared ${doc.fileSize}. Nothing was kept; call file.upload again with the real size.`,
          { declared: doc.fileSize },
        );
      const tooLarge = (actual: number | string) =>
        new UploadRefusal(
          ErrorCode.FileTooLarge,
          413,
          `The upload has ${actual} bytes, more than the ${doc.fileSize} declared and more than the ${this.settings.maxBytes} accepted. Nothing was kept.`,
          { maxBytes: this.settings.maxBytes },
        );
      if (contentLength !== null && contentLength !== doc.fileSize) {
        return refuse(contentLength > this.settings.maxBytes ? tooLarge(contentLength) : sizeLie(contentLength));
      }

      let received;
      try {
        received = await this.bytes.receive(fileId, body, doc.fileSize);
      } catch (error) {
        if (error instanceof UploadTooLong) {
          return refuse(error.received > this.settings.maxBytes ? tooLarge(`more than ${doc.fileSize}`) : sizeLie(`more than ${doc.fileSize}`));
        }
        throw error; // UploadAborted and I/O errors keep the pending file for a retry
      }
      try {
        if (received.size !== doc.fileSize) return await refuse(sizeLie(received.size));
        const textEncoding = await this.checkContent(received.tmpPath, doc.fileType).catch((error: unknown) => {
          if (error instanceof UploadRefusal) return refuse(error);
          throw error;
        });
        await this.bytes.commit(received.tmpPath, fileId);
        const rx = await this.files.findOne(fileId).exec();
        if (!rx) throw new Error('file metadata vanished during upload');
        const updated = await rx.incrementalPatch({ status: 'ready', sha256: received.sha256, textEncoding, updatedAt: this.app.clock.now() });
        return this.view(updated.toJSON() as FileDoc);
      } finally {
        await this.bytes.discard(received.tmpPath);
      }
    });
  }

  /** Checks the real type of stored bytes against the declared one; returns the text encoding ('' for binary). */
  private async checkContent(tmpPath: string, fileType: string): Promise<string> {
    const info = typeInfo(fileType)!;
    // Loaded on the first upload, not at every start.
    const { fileTypeFromFile } = await import('file-type');
    const detected = await fileTypeFromFile(tmpPath);
    if (info.detect === 'text') {
      if (detected) {
        throw new UploadRefusal(ErrorCode.InvalidFileType, 415, `The bytes are a ${detected.mime} file, not ${fileType}. Nothing was kept.`, {
          detected: detected.mime,
        });
      }
      const result = checkText(await readFile(tmpPath));
      if (!result.ok) throw new UploadRefusal(ErrorCode.InvalidFileType, 415, `The bytes are not ${fileType}: ${result.reason}. Nothing was kept.`);
      return result.encoding;
    }
    if (!detected || !info.detect.includes(detected.mime)) {
      const what = detected ? `a ${detected.mime} file` : 'not a recognisable file of that type';
      throw new UploadRefusal(ErrorCode.InvalidFileType, 415, `The bytes are ${what}, but file.upload declared ${fileType}. Nothing was kept.`, {
        detected: detected?.mime ?? null,
      });
    }
    return '';
  }

  /** file.query: the user's stored files, newest first. Pending uploads are not listed. */
  async query(userId: string, input: { category?: string; page: number; pageSize: number }) {
    const selector: Record<string, unknown> = { userId, status: 'ready' };
    if (input.category) selector.category = input.category;
    const [docs, total] = await Promise.all([
      this.files
        .find({ selector, sort: [{ createdAt: 'desc' }, { id: 'desc' }], skip: (input.page - 1) * input.pageSize, limit: input.pageSize })
        .exec(),
      this.files.count({ selector }).exec(),
    ]);
    const list = await Promise.all(docs.map((d) => this.view(d.toJSON() as FileDoc)));
    return { list, total, page: input.page, pageSize: input.pageSize };
  }

  /** How many of the user's accounting records list this file among their attachments. */
  async countAttachedRecords(userId: string, fileId: string): Promise<number> {
    const records = this.app.db.rx.collections['records'] as RxCollection<{ userId: string; attachments?: string[] }> | undefined;
    if (!records) return 0;
    const docs = await records.find({ selector: { userId } }).exec();
    let count = 0;
    for (const doc of docs) if ((doc.get('attachments') as string[] | undefined)?.includes(fileId)) count++;
    return count;
  }

  /**
   * file.delete: removes metadata and bytes. A stored file that accounting records still list is
   * refused with 409 unless `force` is set; those records then show it as missing.
   */
  async delete(userId: string, fileId: string, force: boolean): Promise<{ deleted: true; fileId: string; detachedRecords: number }> {
    return this.locks.run(fileId, async () => {
      const doc = await this.findOwned(userId, fileId);
      if (!doc) throw new ApiError(ErrorCode.FileNotFound, 'This file does not exist.', { fileId });
      const attached = await this.countAttachedRecords(userId, fileId);
      if (attached > 0 && !force) {
        throw new ApiError(
          ErrorCode.Conflict,
          `This file is attached to ${attached} accounting record${attached === 1 ? '' : 's'}. Remove it from ${attached === 1 ? 'that record' : 'those records'} first, or delete with force: true (the records will then show it as missing).`,
          { fileId, records: attached },
        );
      }
      await this.removeDoc(fileId);
      await this.bytes.remove(fileId);
      return { deleted: true, fileId, detachedRecords: attached };
    });
  }

  /**
   * For the ledger: every id must be a stored file of this user, or ApiError 5001 naming the
   * first one that is not. A file whose bytes were not uploaded yet does not count.
   */
  async assertOwned(userId: string, fileIds: string[]): Promise<void> {
    const unique = [...new Set(fileIds)];
    const valid = unique.filter((id) => FILE_ID_PATTERN.test(id));
    const found = valid.length ? await this.files.findByIds(valid).exec() : new Map();
    for (const id of unique) {
      const doc = found.get(id)?.toJSON() as FileDoc | undefined;
      if (!doc || doc.userId !== userId) throw new ApiError(ErrorCode.FileNotFound, `File ${id} does not exist.`, { fileId: id });
      if (doc.status !== 'ready') {
        throw new ApiError(ErrorCode.FileNotFound, `File ${id} has no bytes yet: send them to its uploadUrl before attaching it.`, { fileId: id });
      }
    }
  }

  /**
   * For the ledger: one entry per id, in order. Ids that are unknown, another user's, deleted,
   * or whose bytes are gone come back with `missing: true` (and empty fields when unknown).
   */
  async describe(userId: string, fileIds: string[]): Promise<AttachmentView[]> {
    const valid = [...new Set(fileIds)].filter((id) => FILE_ID_PATTERN.test(id));
    const found = valid.length ? await this.files.findByIds(valid).exec() : new Map();
    return Promise.all(
      fileIds.map(async (id) => {
        const doc = found.get(id)?.toJSON() as FileDoc | undefined;
        if (!doc || doc.userId !== userId || doc.status !== 'ready') {
          return { fileId: id, fileName: '', fileType: '', fileSize: 0, category: '', url: '', signedUrl: '', missing: true };
        }
        const view = await this.view(doc);
        return {
          fileId: id,
          fileName: view.fileName,
          fileType: view.fileType,
          fileSize: view.fileSize,
          category: view.category,
          url: view.url,
          signedUrl: view.signedUrl,
          missing: view.missing,
        };
      }),
    );
  }

  /**
   * Housekeeping: drops pending files whose upload URL expired; at start also bytes that no
   * metadata names (a crash between the two steps of a delete).
   */
  async sweep(orphans: boolean): Promise<void> {
    const now = this.app.clock.now();
    const expired = await this.files.find({ selector: { status: 'pending', uploadExpiresAt: { $lte: now } } }).exec();
    for (const doc of expired) {
      await this.locks.run(doc.id, async () => {
        const current = await this.findDoc(doc.id);
        if (current && current.status === 'pending' && current.uploadExpiresAt <= this.app.clock.now()) {
          await this.removeDoc(doc.id);
          await this.bytes.remove(doc.id);
        }
      });
    }
    if (orphans) {
      const ids = await this.bytes.listIds();
      if (ids.length) {
        const known = await this.files.findByIds(ids).exec();
        for (const id of ids) if (!known.has(id)) await this.bytes.remove(id);
      }
    }
  }
}
