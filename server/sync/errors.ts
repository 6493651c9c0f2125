import { errorCatalogue } from '../lib/errors';

/**
 * The errors of CouchDB sync (docs/sync.md). What CouchDB itself answers (refused credentials,
 * forbidden, unreachable) keeps CouchDB's words: couch-client.ts maps it to commonErrors.
 */
export const syncErrors = errorCatalogue(
  {
    urlNotAnAddress: { code: 400, status: 400, message: () => "params.url must be the CouchDB server's address, e.g. https://couch.example.com/" },
    urlNotHttp: { code: 400, status: 400, message: () => 'params.url must start with http:// or https://' },
    credentialsInUrl: { code: 400, status: 400, message: () => 'Put the credentials in username and password, not in the URL.' },
    notSyncable: {
      code: 400,
      status: 400,
      message: (name: string, syncable: readonly string[]) => `"${name}" cannot be synced. Syncable: ${syncable.join(', ')}.`,
    },
    passwordForOtherServer: {
      code: 400,
      status: 400,
      message: () => 'Enter the password again: it is kept only for the address it was entered for, and this changes the server address or the username.',
    },
    passwordPlaceholder: {
      code: 400,
      status: 400,
      message: (placeholder: string) => `Enter the password again: "${placeholder}" is what sync.status shows in its place, not the password.`,
    },
    notConfigured: { code: 404, status: 404, message: () => 'Sync is not configured.' },
    notConfiguredToStart: { code: 404, status: 404, message: () => 'Sync is not configured. Use sync.configure first.' },
    conflictNotFound: { code: 404, status: 404, message: () => 'No such conflict in your conflict log.' },
    conflictClosed: { code: 409, status: 409, message: (status: string) => `This conflict is closed already (${status}).` },
    collectionUnavailable: { code: 404, status: 404, message: (collection: string) => `The ${collection} collection is not available here.` },
    documentDeletedSince: { code: 409, status: 409, message: () => 'The document has been deleted since; there is nothing to change.' },
    phoneNeedsAdmin: {
      code: 403,
      status: 403,
      message: (user: string, databases: readonly string[]) =>
        `The CouchDB user "${user}" is not a CouchDB admin, so PennyPost cannot make a user for the phone. ` +
        `Ask your CouchDB admin to create a CouchDB user for the phone and add it to the members of ${databases.join(', ')} (docs/phone.md, "Pairing without admin rights").`,
    },
    phoneNotFound: { code: 404, status: 404, message: () => 'No phone of this ledger has that user name.' },
    otherVersionNotWritten: { code: 409, status: 409, message: (reason: string) => `The other version could not be written back: ${reason}` },
  },
  'sync',
);
