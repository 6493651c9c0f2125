import { Type } from '@sinclair/typebox';
import { defineAction, defineActions, Params, type ActionErrorDoc } from '../api/action';
import { Id, Ms, Page, PageSize } from '../api/params';
import { commonErrors } from '../lib/errors';
import { linksErrors } from './errors';
import { LinkDeleted, LinkList, LinkShape } from './result-shapes';
import { CODE_MAX, DESCRIPTION_MAX, TITLE_MAX, URL_MAX } from './schema';
import type { LinkService } from './service';

declare module '../app-context' {
  interface ServiceMap {
    links: LinkService;
  }
}

const LinkId = Id('id of the link (from shortlink.create or shortlink.list).', 40);
const Url = Type.String({ minLength: 1, maxLength: URL_MAX, description: 'Target: an absolute http:// or https:// URL without user:password@.' });
const Title = Type.String({ maxLength: TITLE_MAX });
const Description = Type.String({ maxLength: DESCRIPTION_MAX });
const ExpireAt = Ms('When the link stops redirecting (ms); 0 = never.');

/** The refusals of a target URL (LinkService.checkTarget), for shortlink.create and shortlink.update. */
const URL_ERRORS: readonly ActionErrorDoc[] = [
  [linksErrors.rows.urlNotAbsolute, 'url is not an absolute URL'],
  [linksErrors.rows.schemeNotAllowed, 'url is not http: or https:'],
  [linksErrors.rows.urlWithoutHost, 'url has no host'],
  [linksErrors.rows.credentialsInUrl, 'url carries a user name or password'],
  [linksErrors.rows.urlReachesThisServer, 'url reaches this server (any of its names, addresses or ports)'],
  [linksErrors.rows.urlTooLong, 'url is too long once normalised'],
];

const create = defineAction({
  summary: 'Create a short link /s/{code} that redirects (302) to a web address.',
  notes:
    'The code is 7 random base62 characters (62^7 ≈ 3.5·10^12), or your `alias` (3–32 letters, digits, `_` or `-`; case-sensitive; unique across all users of this server → 409 when taken). ' +
    'Only http: and https: targets; URLs with `user:password@` and every URL that reaches this server (any of its names, addresses, ports or spellings: `localhost`, `[::1]`, `127.1`, `2130706433`, its LAN addresses, allowedHosts, publicBaseUrl) are refused (400), so links can never redirect to each other in a loop. ' +
    '`isPublic` defaults to true; a private link redirects only its owner (Authorization: Bearer, or the `ownerUrl`) and answers 404 to anyone else. ' +
    '`expireAt` (ms, 0 = never) must be in the future; after it the short URL answers 410 with a small page.',
  auth: 'user',
  params: Params({
    url: Url,
    title: Type.Optional(Title),
    description: Type.Optional(Description),
    expireAt: Type.Optional(ExpireAt),
    isPublic: Type.Optional(Type.Boolean({ default: true })),
    alias: Type.Optional(Type.String({ minLength: 3, maxLength: CODE_MAX, pattern: '^[A-Za-z0-9_-]+$', hint: 'linkCode', description: 'Custom code instead of a random one.' })),
  }),
  result: LinkShape,
  errors: [
    [commonErrors.rows.invalid, 'a parameter is missing or malformed (e.g. alias)'],
    ...URL_ERRORS,
    [linksErrors.rows.expiryInPast, 'expireAt is in the past'],
    [linksErrors.rows.aliasTaken, 'the alias is already taken'],
  ],
  handler: (params, ctx) => ctx.app.services.links.create(ctx.user.id, params),
});

const query = defineAction({
  summary: 'One of your short links by code, with its statistics (access count, last access).',
  notes: "Counts include every redirect served so far. Another user's code answers 404 like an unknown one.",
  auth: 'user',
  params: Params({ code: Type.String({ minLength: 1, maxLength: CODE_MAX }) }),
  result: LinkShape,
  errors: [[linksErrors.rows.linkNotFound, 'no link of yours has this code']],
  handler: (params, ctx) => ctx.app.services.links.query(ctx.user.id, params.code),
});

const list = defineAction({
  summary: 'Your short links, newest first.',
  auth: 'user',
  params: Params({
    page: Page(),
    pageSize: PageSize(100, 20),
  }),
  result: LinkList,
  errors: [[commonErrors.rows.invalid, 'page or pageSize out of range']],
  handler: (params, ctx) => ctx.app.services.links.list(ctx.user.id, params.page, params.pageSize),
});

const update = defineAction({
  summary: 'Change the title, description, expiry, visibility or target of one of your links.',
  notes: 'Give at least one field. `expireAt: 0` removes the expiry; a past `expireAt` expires the link at once. ' + 'The code never changes; statistics are kept.',
  auth: 'user',
  params: Params({
    id: LinkId,
    title: Type.Optional(Title),
    description: Type.Optional(Description),
    expireAt: Type.Optional(ExpireAt),
    isPublic: Type.Optional(Type.Boolean()),
    url: Type.Optional(Url),
  }),
  result: LinkShape,
  errors: [[linksErrors.rows.nothingToChange, 'no field to change'], ...URL_ERRORS, [linksErrors.rows.linkNotFound, 'no link of yours has this id']],
  handler: (params, ctx) => {
    const { id, ...patch } = params;
    return ctx.app.services.links.update(ctx.user.id, id, patch);
  },
});

const remove = defineAction({
  summary: 'Delete one of your short links; its short URL answers 404 from then on.',
  auth: 'user',
  params: Params({ id: LinkId }),
  result: LinkDeleted,
  errors: [[linksErrors.rows.linkNotFound, 'no link of yours has this id']],
  handler: (params, ctx) => ctx.app.services.links.delete(ctx.user.id, params.id),
});

export const linkActions = defineActions({
  'shortlink.create': create,
  'shortlink.query': query,
  'shortlink.list': list,
  'shortlink.update': update,
  'shortlink.delete': remove,
});
