import { Type, type Static } from '@sinclair/typebox';
import { defineCollection } from '../db/collections';
import { Bool, IdField, Int, Ms, Str } from '../db/schema-fields';

export const CODE_MAX = 32;
export const URL_MAX = 2048;
export const TITLE_MAX = 200;
export const DESCRIPTION_MAX = 1000;

/** A short link: /s/{code} redirects to `url`. */
export const LinkDocument = Type.Object({
  id: IdField(),
  userId: IdField(),
  /** The path part of the short URL: /s/{code}. Case-sensitive, unique across all users. */
  code: Str(CODE_MAX),
  /** Target, an absolute http: or https: URL. */
  url: Str(URL_MAX),
  title: Str(TITLE_MAX),
  description: Str(DESCRIPTION_MAX),
  /** When the link stops redirecting (ms); 0 = never. */
  expireAt: Ms(),
  /** false: only the owner is redirected. */
  isPublic: Bool(),
  /** Redirects served. */
  accessCount: Int(0, 1e15),
  /** Time of the last redirect (ms); 0 = never used. */
  lastAccessAt: Ms(),
  createdAt: Ms(),
  updatedAt: Ms(),
});
export type LinkDoc = Static<typeof LinkDocument>;

/**
 * Short links. The `code` index does not start with userId on purpose: GET /s/{code} looks a
 * code up across all users (codes are unique; the owner is checked afterwards).
 */
export const linksCollection = defineCollection({
  name: 'links',
  title: 'PennyPost short links',
  version: 0,
  primaryKey: 'id',
  document: LinkDocument,
  indexes: ['code', ['userId', 'createdAt']],
  sync: true,
});
