import type { CollectionDefinition } from '../db/collections';
import { ID_MAX_LENGTH } from '../lib/ids';
import { int as intRange, ms, str } from '../db/schema-fields';

const int = (maximum: number) => intRange(0, maximum);

export interface LinkDoc {
  id: string;
  userId: string;
  /** The path part of the short URL: /s/{code}. Case-sensitive, unique across all users. */
  code: string;
  /** Target, an absolute http: or https: URL. */
  url: string;
  title: string;
  description: string;
  /** When the link stops redirecting (ms); 0 = never. */
  expireAt: number;
  /** false: only the owner is redirected. */
  isPublic: boolean;
  /** Redirects served. */
  accessCount: number;
  /** Time of the last redirect (ms); 0 = never used. */
  lastAccessAt: number;
  createdAt: number;
  updatedAt: number;
}

export const CODE_MAX = 32;
export const URL_MAX = 2048;
export const TITLE_MAX = 200;
export const DESCRIPTION_MAX = 1000;


/**
 * Short links. The `code` index does not start with userId on purpose: GET /s/{code} looks a
 * code up across all users (codes are unique; the owner is checked afterwards).
 */
export const linksCollection: CollectionDefinition<LinkDoc> = {
  name: 'links',
  schema: {
    title: 'PennyPost short links',
    version: 0,
    primaryKey: 'id',
    type: 'object',
    properties: {
      id: str(ID_MAX_LENGTH),
      userId: str(ID_MAX_LENGTH),
      code: str(CODE_MAX),
      url: str(URL_MAX),
      title: str(TITLE_MAX),
      description: str(DESCRIPTION_MAX),
      expireAt: ms,
      isPublic: { type: 'boolean' },
      accessCount: int(1e15),
      lastAccessAt: ms,
      createdAt: ms,
      updatedAt: ms,
    },
    required: ['id', 'userId', 'code', 'url', 'title', 'description', 'expireAt', 'isPublic', 'accessCount', 'lastAccessAt', 'createdAt', 'updatedAt'],
    indexes: ['code', ['userId', 'createdAt']],
  } as any,
};
