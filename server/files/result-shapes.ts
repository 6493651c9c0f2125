import { Type, type Static } from '@sinclair/typebox';
import { Result, Shape } from '../api/result';

/** Result shapes of the files' actions (server/api/result.ts); the service's views are typed by them. */

const URLS_NOTE = 'a path on this server (`/files/…`), to resolve against the address you call it at';

const fileFields = {
  fileId: Type.String(),
  fileName: Type.String({ description: 'display and download name' }),
  fileType: Type.String({ description: 'media type' }),
  fileSize: Type.Integer({ description: 'bytes' }),
  category: Type.String({ description: 'free text, e.g. "receipt"' }),
  url: Type.String({ description: `serves the bytes with \`Authorization: Bearer\`; ${URLS_NOTE}` }),
  signedUrl: Type.String({ description: `the same bytes without a header (for \`<img src>\`) until \`signedUrlExpiresAt\`; ${URLS_NOTE}` }),
};

export const FileShape = Shape(
  'File',
  {
    ...fileFields,
    signedUrlExpiresAt: Type.Integer({ description: 'ms' }),
    missing: Type.Boolean({ description: 'the metadata exists but the bytes are not on this computer' }),
    createdAt: Type.Integer({ description: 'ms' }),
    updatedAt: Type.Integer({ description: 'ms' }),
  },
  'A stored file (a receipt, a statement, a picture).',
);
export type FileView = Static<typeof FileShape>;

export const AttachmentShape = Shape(
  'Attachment',
  {
    ...fileFields,
    missing: Type.Boolean({
      description: 'the file is gone (deleted, never uploaded completely, not yours) or its bytes are not on this computer; the other fields are then empty',
    }),
  },
  "A file attached to a record, as a record's details show it.",
);
export type AttachmentView = Static<typeof AttachmentShape>;

export const UploadTicketShape = Result({
  fileId: Type.String(),
  url: Type.String({ description: `serves the bytes once they arrived; ${URLS_NOTE}` }),
  uploadUrl: Type.String({ description: `single-use: PUT the raw bytes here; ${URLS_NOTE}` }),
  uploadExpiresAt: Type.Integer({ description: 'ms: the PUT must come before' }),
  maxBytes: Type.Integer({ description: 'the largest file accepted, bytes' }),
});
export type UploadTicket = Static<typeof UploadTicketShape>;

export const FileList = Result({
  list: Type.Array(FileShape, { description: 'newest first' }),
  total: Type.Integer(),
  page: Type.Integer(),
  pageSize: Type.Integer(),
});

export const FileDeleted = Result({
  deleted: Type.Literal(true),
  fileId: Type.String(),
  detachedRecords: Type.Integer({ description: 'how many records still list the id and now show the file as missing (only with `force`; else 0)' }),
});
