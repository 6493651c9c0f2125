import type { Readable } from 'node:stream';
import type { RxCollection, RxDocument } from 'rxdb';
import { optionalService, type AppContext } from '../app-context';
import { DomainError } from '../lib/errors';
import { newId } from '../lib/ids';
import { KeyedMutex } from '../lib/keyed-mutex';
import { filesErrors } from './errors';
import type { AttachmentView, FileView, UploadTicket } from './result-shapes';
import type { FileDoc } from './schema';
import { Signer } from './signing';
import { ByteStore, FILE_ID_PATTERN, UploadTooLong } from './store';
import { checkContent, normalizeMediaType, SUPPORTED_TYPES, typeInfo } from './types';

const DEFAULT_CATEGORY = 'other';

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
    if (!allowed.includes(mime)) throw filesErrors.invalidFileType(declared, typeInfo(mime) !== undefined, allowed).with({ allowedTypes: allowed });
    return mime;
  }

  /** The size check shared by file.upload and the byte upload (5002). */
  private assertSizeAllowed(size: number): void {
    const max = this.settings.maxBytes;
    if (size > max) throw filesErrors.fileTooLarge(size, max).with({ maxBytes: max });
  }

  /** file.upload: records the metadata (pending) and hands out the single-use upload URL. */
  async createUpload(userId: string, input: { fileName: string; fileType: string; fileSize: number; category?: string }): Promise<UploadTicket> {
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
    return doc ? doc.toJSON() : null;
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
      throw filesErrors.uploadUrlInvalid();
    }
    return this.locks.run(fileId, async () => {
      const doc = await this.findDoc(fileId);
      if (!doc) throw filesErrors.uploadFileGone();
      if (doc.status === 'ready') throw filesErrors.uploadUrlUsed();
      if (doc.uploadExpiresAt !== expires) throw filesErrors.uploadUrlNotForFile();
      if (this.app.clock.now() >= expires) {
        await this.removeDoc(fileId);
        throw filesErrors.uploadUrlExpired(expires).with({ expiredAt: expires });
      }
      // From here on every refusal removes the pending file: nothing is kept.
      const refuse = async (error: DomainError): Promise<never> => {
        await this.removeDoc(fileId);
        throw error;
      };
      try {
        this.assertTypeAllowed(doc.fileType);
        this.assertSizeAllowed(doc.fileSize);
      } catch (error) {
        return refuse(error as DomainError);
      }
      const sizeLie = (actual: number | string) => filesErrors.sizeMismatch(actual, doc.fileSize).with({ declared: doc.fileSize });
      const tooLarge = (actual: number | string) => filesErrors.uploadTooLarge(actual, doc.fileSize, this.settings.maxBytes).with({ maxBytes: this.settings.maxBytes });
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
        const textEncoding = await checkContent(received.tmpPath, doc.fileType).catch((error: unknown) => {
          if (error instanceof DomainError) return refuse(error);
          throw error;
        });
        await this.bytes.commit(received.tmpPath, fileId);
        const rx = await this.files.findOne(fileId).exec();
        if (!rx) throw new Error('file metadata vanished during upload');
        const updated = await rx.incrementalPatch({ status: 'ready', sha256: received.sha256, textEncoding, updatedAt: this.app.clock.now() });
        return await this.view(updated.toJSON());
      } finally {
        await this.bytes.discard(received.tmpPath);
      }
    });
  }

  /** file.query: the user's stored files, newest first. Pending uploads are not listed. */
  async query(userId: string, input: { category?: string; page: number; pageSize: number }) {
    const selector: Record<string, unknown> = { userId, status: 'ready' };
    if (input.category) selector.category = input.category;
    const [docs, total] = await Promise.all([
      this.files.find({ selector, sort: [{ createdAt: 'desc' }, { id: 'desc' }], skip: (input.page - 1) * input.pageSize, limit: input.pageSize }).exec(),
      this.files.count({ selector }).exec(),
    ]);
    const list = await Promise.all(docs.map((d) => this.view(d.toJSON() as FileDoc)));
    return { list, total, page: input.page, pageSize: input.pageSize };
  }

  /** How many of the user's accounting records list this file among their attachments (the ledger's count; 0 without a ledger). */
  async countAttachedRecords(userId: string, fileId: string): Promise<number> {
    const ledger = optionalService(this.app, 'ledger');
    return ledger ? ledger.countRecordsAttaching(userId, fileId) : 0;
  }

  /**
   * file.delete: removes metadata and bytes. A stored file that accounting records still list is
   * refused with 409 unless `force` is set; those records then show it as missing.
   */
  async delete(userId: string, fileId: string, force: boolean): Promise<{ deleted: true; fileId: string; detachedRecords: number }> {
    return this.locks.run(fileId, async () => {
      const doc = await this.findOwned(userId, fileId);
      if (!doc) throw filesErrors.fileNotFound().with({ fileId });
      const attached = await this.countAttachedRecords(userId, fileId);
      if (attached > 0 && !force) throw filesErrors.attachedToRecords(attached).with({ fileId, records: attached });
      await this.removeDoc(fileId);
      await this.bytes.remove(fileId);
      return { deleted: true, fileId, detachedRecords: attached };
    });
  }

  /**
   * For the ledger: every id must be a stored file of this user, or 5001 (filesErrors) naming the
   * first one that is not. A file whose bytes were not uploaded yet does not count.
   */
  async assertOwned(userId: string, fileIds: string[]): Promise<void> {
    const unique = [...new Set(fileIds)];
    const valid = unique.filter((id) => FILE_ID_PATTERN.test(id));
    const found = valid.length ? await this.files.findByIds(valid).exec() : new Map<string, RxDocument<FileDoc>>();
    for (const id of unique) {
      const doc = found.get(id)?.toJSON();
      if (!doc || doc.userId !== userId) throw filesErrors.attachmentNotFound(id).with({ fileId: id });
      if (doc.status !== 'ready') throw filesErrors.attachmentWithoutBytes(id).with({ fileId: id });
    }
  }

  /**
   * For the ledger: one entry per id, in order. Ids that are unknown, another user's, deleted,
   * or whose bytes are gone come back with `missing: true` (and empty fields when unknown).
   */
  async describe(userId: string, fileIds: string[]): Promise<AttachmentView[]> {
    const valid = [...new Set(fileIds)].filter((id) => FILE_ID_PATTERN.test(id));
    const found = valid.length ? await this.files.findByIds(valid).exec() : new Map<string, RxDocument<FileDoc>>();
    return Promise.all(
      fileIds.map(async (id) => {
        const doc = found.get(id)?.toJSON();
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
