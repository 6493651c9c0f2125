import { Type, type Static } from '@sinclair/typebox';
import { Result, Shape } from '../api/result';

/** Result shapes of the short links' actions (server/api/result.ts); the service's view is typed by them. */

export const LinkShape = Shape(
  'ShortLink',
  {
    id: Type.String(),
    code: Type.String({ description: 'the part after /s/ (case-sensitive)' }),
    shortUrl: Type.String({ description: 'the short URL to share: <base>/s/<code>' }),
    url: Type.String({ description: 'the target (normalised)' }),
    title: Type.String(),
    description: Type.String(),
    expireAt: Type.Integer({ description: 'ms when the link stops redirecting; 0 = never' }),
    isPublic: Type.Boolean({ description: 'false: redirects only its owner (Authorization: Bearer, or `ownerUrl`)' }),
    expired: Type.Boolean({ description: 'true once `expireAt` has passed (the short URL then answers 410)' }),
    accessCount: Type.Integer({ description: 'redirects served so far' }),
    lastAccessAt: Type.Integer({ description: 'ms of the last redirect; 0 = never' }),
    createdAt: Type.Integer({ description: 'ms' }),
    updatedAt: Type.Integer({ description: 'ms' }),
    ownerUrl: Type.Optional(Type.String({ description: 'private links only: the short URL with a `?t=` access token that opens it in any browser' })),
    ownerUrlExpiresAt: Type.Optional(Type.Integer({ description: 'private links only: ms until `ownerUrl` works' })),
  },
  'A short link with its statistics.',
);
export type LinkView = Static<typeof LinkShape>;

export const LinkList = Result({
  list: Type.Array(LinkShape, { description: 'newest first' }),
  total: Type.Integer(),
  page: Type.Integer(),
  pageSize: Type.Integer(),
});

export const LinkDeleted = Result({ deleted: Type.Literal(true), id: Type.String() });
