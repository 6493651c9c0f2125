import { Type, type Static } from '@sinclair/typebox';
import { defineCollection } from '../db/collections';
import { EnumOf, IdField, Int, Ms, Str } from '../db/schema-fields';

export const FILE_NAME_MAX = 255;
export const CATEGORY_MAX = 32;

/**
 * File metadata. The bytes never live in RxDB: they are in `<dataDir>/files/<id>` (see store.ts).
 * A document synced in from another device may have no bytes here; it is reported as missing.
 */
export const FileDocument = Type.Object({
  id: IdField(),
  userId: IdField(),
  /** Name given by the client (display and download name). */
  fileName: Str(FILE_NAME_MAX),
  /** Canonical media type (server/files/types.ts). */
  fileType: Str(100),
  /** Size in bytes (declared at file.upload, verified when the bytes arrive). */
  fileSize: Int(1, 1e13),
  category: Str(CATEGORY_MAX),
  /** pending: waiting for the bytes at the upload URL; ready: bytes stored and checked. */
  status: EnumOf(['pending', 'ready'] as const, 10),
  /** Until when the upload URL works (ms). */
  uploadExpiresAt: Ms(),
  /** Text files: 'utf-8' or 'gb18030'; '' for other types and while pending. */
  textEncoding: Str(16),
  /** Hex SHA-256 of the bytes; '' while pending. */
  sha256: Str(64),
  createdAt: Ms(),
  updatedAt: Ms(),
});
export type FileDoc = Static<typeof FileDocument>;

export const filesCollection = defineCollection({
  name: 'files',
  title: 'PennyPost file metadata',
  version: 0,
  primaryKey: 'id',
  document: FileDocument,
  indexes: [
    ['userId', 'status', 'createdAt'],
    ['userId', 'status', 'category', 'createdAt'],
  ],
  sync: true,
});
