import type { CollectionDefinition } from '../db/collections';
import { ID_MAX_LENGTH } from '../lib/ids';
import { ms, str } from '../db/schema-fields';

/**
 * File metadata. The bytes never live in RxDB: they are in `<dataDir>/files/<id>` (see store.ts).
 * A document synced in from another device may have no bytes here; it is reported as missing.
 */
export interface FileDoc {
  id: string;
  userId: string;
  /** Name given by the client (display and download name). */
  fileName: string;
  /** Canonical media type (server/files/types.ts). */
  fileType: string;
  /** Size in bytes (declared at file.upload, verified when the bytes arrive). */
  fileSize: number;
  category: string;
  /** pending: waiting for the bytes at the upload URL; ready: bytes stored and checked. */
  status: 'pending' | 'ready';
  /** Until when the upload URL works (ms). */
  uploadExpiresAt: number;
  /** Text files: 'utf-8' or 'gb18030'; '' for other types and while pending. */
  textEncoding: string;
  /** Hex SHA-256 of the bytes; '' while pending. */
  sha256: string;
  createdAt: number;
  updatedAt: number;
}


export const FILE_NAME_MAX = 255;
export const CATEGORY_MAX = 32;

export const filesCollection: CollectionDefinition<FileDoc> = {
  name: 'files',
  sync: true,
  schema: {
    title: 'PennyPost file metadata',
    version: 0,
    primaryKey: 'id',
    type: 'object',
    properties: {
      id: str(ID_MAX_LENGTH),
      userId: str(ID_MAX_LENGTH),
      fileName: str(FILE_NAME_MAX),
      fileType: str(100),
      fileSize: { type: 'integer', minimum: 1, maximum: 1e13, multipleOf: 1 },
      category: str(CATEGORY_MAX),
      status: { type: 'string', enum: ['pending', 'ready'], maxLength: 10 },
      uploadExpiresAt: ms,
      textEncoding: str(16),
      sha256: str(64),
      createdAt: ms,
      updatedAt: ms,
    },
    required: ['id', 'userId', 'fileName', 'fileType', 'fileSize', 'category', 'status', 'uploadExpiresAt', 'textEncoding', 'sha256', 'createdAt', 'updatedAt'],
    indexes: [
      ['userId', 'status', 'createdAt'],
      ['userId', 'status', 'category', 'createdAt'],
    ],
  } as any,
};
