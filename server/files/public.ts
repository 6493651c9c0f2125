/**
 * What other domains may use of files beside app.services.files: the files' errors (a record
 * attaching a missing file), the URL signer that short links share, and the shape of an attached
 * file as a record's details show it.
 */
export { AttachmentShape, type AttachmentView } from './result-shapes';
export { filesErrors } from './errors';
export { baseUrlOf, Signer } from './signing';
