/**
 * What other domains may use of files beside app.services.files: the files' errors (a record
 * attaching a missing file) and the URL signer that short links share.
 */
export { filesErrors } from './errors';
export { baseUrlOf, Signer } from './signing';
