import { errorCatalogue } from '../lib/errors';

/** The errors of short links (shortlink.* actions). A field is named in domain terms (`url`); the router adds `params.`. */
export const linksErrors = errorCatalogue(
  {
    linkNotFound: { code: 404, status: 404, message: () => 'No short link of yours has this id or code.' },
    urlNotAbsolute: { code: 400, status: 400, message: () => 'params.url is not an absolute URL (it must start with http:// or https://).' },
    schemeNotAllowed: { code: 400, status: 400, message: (protocol: string) => `Only http: and https: links are allowed (got "${protocol}").` },
    urlWithoutHost: { code: 400, status: 400, message: () => 'params.url has no host name.' },
    credentialsInUrl: {
      code: 400,
      status: 400,
      message: () => 'Links with a user name or password in the URL are not allowed (they are used to disguise the real site).',
    },
    urlReachesThisServer: {
      code: 400,
      status: 400,
      message: (host: string) =>
        `params.url leads to this PennyPost server itself ("${host}"); a short link must lead somewhere else (links to this server could redirect to each other forever).`,
    },
    urlTooLong: { code: 400, status: 400, message: (max: number) => `params.url is longer than ${max} characters.` },
    expiryInPast: { code: 400, status: 400, message: () => 'params.expireAt is in the past; use 0 (or leave it out) for a link that never expires.' },
    nothingToChange: { code: 400, status: 400, message: () => 'Nothing to change: give at least one of url, title, description, expireAt, isPublic.' },
    aliasTaken: {
      code: 409,
      status: 409,
      message: (code: string) => `The short code "${code}" is already taken. Choose another, or leave alias out for a random one.`,
    },
  },
  'links',
);
