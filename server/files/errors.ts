import { errorCatalogue } from '../lib/errors';

/** A size in MiB as people read it: 20 MiB, 1.5 MiB. */
function mib(bytes: number): string {
  const value = bytes / (1024 * 1024);
  return `${Number.isInteger(value) ? value : value.toFixed(1)} MiB`;
}

/**
 * The errors of files: file.* actions, the upload URL and the file URLs. The three business codes
 * (5001 fileNotFound, 5002 fileTooLarge, 5003 invalidFileType) each have their general row and
 * rows for the situations that need their own words.
 */
export const filesErrors = errorCatalogue(
  {
    fileNotFound: { code: 5001, status: 404, message: () => 'This file does not exist.' },
    /** A file id given to attach to a record. */
    attachmentNotFound: { code: 5001, status: 404, message: (fileId: string) => `File ${fileId} does not exist.` },
    attachmentWithoutBytes: {
      code: 5001,
      status: 404,
      message: (fileId: string) => `File ${fileId} has no bytes yet: send them to its uploadUrl before attaching it.`,
    },
    uploadFileGone: {
      code: 5001,
      status: 404,
      message: () => 'This file does not exist any more (it was deleted, or an earlier upload to this URL was refused). Call file.upload again.',
    },
    fileTooLarge: {
      code: 5002,
      status: 413,
      message: (size: number, max: number) => `The file is ${mib(size)}; the largest accepted file is ${mib(max)} (${max} bytes).`,
    },
    uploadTooLarge: {
      code: 5002,
      status: 413,
      message: (actual: number | string, declared: number, max: number) =>
        `The upload has ${actual} bytes, more than the ${declared} declared and more than the ${max} accepted. Nothing was kept.`,
    },
    invalidFileType: {
      code: 5003,
      status: 415,
      message: (declared: string, turnedOff: boolean, accepted: readonly string[]) =>
        `The file type "${declared}" ${turnedOff ? 'is turned off in the settings (files.allowedTypes)' : 'is not accepted'}. Accepted types: ${accepted.join(', ')}.`,
    },
    bytesOfAnotherType: {
      code: 5003,
      status: 415,
      message: (detected: string, declared: string) => `The bytes are a ${detected} file, not ${declared}. Nothing was kept.`,
    },
    bytesNotText: {
      code: 5003,
      status: 415,
      message: (declared: string, reason: string) => `The bytes are not ${declared}: ${reason}. Nothing was kept.`,
    },
    bytesNotOfDeclaredType: {
      code: 5003,
      status: 415,
      message: (detected: string | null, declared: string) =>
        `The bytes are ${detected ? `a ${detected} file` : 'not a recognisable file of that type'}, but file.upload declared ${declared}. Nothing was kept.`,
    },
    // The upload's bytes (answered at the upload URL too).
    sizeMismatch: {
      code: 400,
      status: 400,
      message: (actual: number | string, declared: number) =>
        `The upload has ${actual} bytes but file.upload declared ${declared}. Nothing was kept; call file.upload again with the real size.`,
    },
    // The upload URL (PUT /files/{fileId}/upload, routes.ts): every refusal after the URL was checked removes the pending file.
    uploadUrlInvalid: { code: 403, status: 403, message: () => 'This upload URL is not valid: it was altered, or it belongs to another PennyPost.' },
    uploadUrlNotForFile: { code: 403, status: 403, message: () => 'This upload URL is not valid for this file.' },
    uploadUrlUsed: { code: 410, status: 410, message: () => 'This upload URL was already used: the file is stored. Call file.upload for a new file.' },
    uploadUrlExpired: { code: 410, status: 410, message: (expiredAt: number) => `This upload URL expired at ${new Date(expiredAt).toISOString()}. Call file.upload again.` },
    // file.delete
    attachedToRecords: {
      code: 409,
      status: 409,
      message: (records: number) =>
        `This file is attached to ${records} accounting record${records === 1 ? '' : 's'}. Remove it from ${records === 1 ? 'that record' : 'those records'} first, or delete with force: true (the records will then show it as missing).`,
    },
    // The file URLs (GET /files/{fileId}, routes.ts).
    fileLinkInvalid: { code: 403, status: 403, message: () => 'This file link is not valid: it was altered, or it belongs to another PennyPost.' },
    fileLinkExpired: {
      code: 403,
      status: 403,
      message: (expiredAt: number) => `This file link expired at ${new Date(expiredAt).toISOString()}. Ask the app for a fresh one (file.query).`,
    },
    bytesNotHere: {
      code: 5001,
      status: 410,
      message: (fileName: string, damaged: boolean) =>
        `The bytes of "${fileName}" ${damaged ? 'are damaged in' : 'are missing from'} this computer's data folder (it may have been added on another device, or restored from an incomplete backup). Upload it again.`,
    },
    bytesUnreadable: { code: 5001, status: 410, message: (fileName: string) => `The bytes of "${fileName}" could not be read from this computer's data folder.` },
  },
  'files',
);
