import { Type } from '@sinclair/typebox';
import { defineAction, defineActions, Params } from '../api/action';
import { Id, Page, PageSize } from '../api/params';
import { commonErrors } from '../lib/errors';
import { filesErrors } from './errors';
import { FileDeleted, FileList, UploadTicketShape } from './result-shapes';
import { CATEGORY_MAX, FILE_NAME_MAX } from './schema';
import type { FileService } from './service';

declare module '../app-context' {
  interface ServiceMap {
    files: FileService;
  }
}

const FileId = Id('fileId from file.upload.', 40);
const Category = Type.String({
  minLength: 1,
  maxLength: CATEGORY_MAX,
  pattern: '^[^\\u0000-\\u001f\\u007f]+$',
  hint: 'noControlCharacters',
  description: 'Free text, e.g. "receipt", "statement", "photo".',
});

const upload = defineAction({
  summary: 'Announce a file and get the single-use URL to PUT its bytes to.',
  notes:
    'Step 1 of 2. Step 2: `PUT uploadUrl` (a path on this server, like `url`) with the raw bytes as the body (any Content-Type; Content-Length, when sent, must equal `fileSize`), ' +
    'before `uploadExpiresAt` (settings files.uploadUrlSeconds, default 15 minutes). The PUT answers the envelope with the stored file. ' +
    'The bytes must have exactly `fileSize` bytes and be of `fileType` judging by their content (magic numbers; text and CSV must be UTF-8 or GB18030 text, not HTML); ' +
    'otherwise the PUT is refused (400 size, 413 5002, 415 5003) and nothing is kept: start again with file.upload. ' +
    'Accepted types (settings files.allowedTypes): image/jpeg, image/png, image/gif, image/webp, image/heic, image/heif, image/avif, application/pdf, text/plain, text/csv. ' +
    'Maximum size: settings files.maxBytes, default 20 MiB. Until the bytes arrive the file is not listed by file.query and cannot be attached to records.',
  auth: 'user',
  params: Params({
    fileName: Type.String({
      minLength: 1,
      maxLength: FILE_NAME_MAX,
      pattern: '^[^\\u0000-\\u001f\\u007f/\\\\]+$',
      hint: 'fileName',
      description: 'Display and download name, without folders.',
    }),
    fileType: Type.String({ minLength: 1, maxLength: 100, description: 'Media type, e.g. "image/jpeg" (image/jpg is understood too).' }),
    fileSize: Type.Integer({ minimum: 1, maximum: 1e13, description: 'Exact size in bytes.' }),
    category: Type.Optional(Category),
  }),
  result: UploadTicketShape,
  errors: [
    [commonErrors.rows.invalid, 'a parameter is missing or malformed'],
    [filesErrors.rows.fileTooLarge, 'fileSize is larger than the maximum (data.maxBytes)'],
    [filesErrors.rows.invalidFileType, 'fileType is not an accepted type (data.allowedTypes)'],
  ],
  handler: (params, ctx) => ctx.app.services.files.createUpload(ctx.user.id, params),
});

const query = defineAction({
  summary: 'List your stored files, newest first, optionally of one category.',
  notes: 'Uploads whose bytes have not arrived are not listed.',
  auth: 'user',
  params: Params({
    category: Type.Optional(Category),
    page: Page(),
    pageSize: PageSize(100, 20),
  }),
  result: FileList,
  errors: [[commonErrors.rows.invalid, 'page or pageSize out of range']],
  handler: (params, ctx) => ctx.app.services.files.query(ctx.user.id, params),
});

const remove = defineAction({
  summary: 'Delete a file: its metadata and its bytes.',
  notes:
    'A file still attached to accounting records is refused with 409 (data.records = how many) unless `force: true`; ' +
    'with force the records keep the id and show the file as missing. Deleting a record never deletes its files.',
  auth: 'user',
  params: Params({ fileId: FileId, force: Type.Optional(Type.Boolean({ default: false })) }),
  result: FileDeleted,
  errors: [
    [filesErrors.rows.fileNotFound, 'no such file of yours'],
    [filesErrors.rows.attachedToRecords, 'the file is attached to records (data.records) and force is not set'],
  ],
  handler: (params, ctx) => ctx.app.services.files.delete(ctx.user.id, params.fileId, params.force ?? false),
});

export const fileActions = defineActions({
  'file.upload': upload,
  'file.query': query,
  'file.delete': remove,
});
