import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { AppContext } from '../app-context';
import { isFromThisComputer, isLoopback, normalizeAddress } from '../http/addresses';
import { bearerToken, type Authenticator as BearerAuthenticator } from '../http/bearer';
import { unreadableBody } from '../http/body-errors';
import { refusePendingPasswordChange } from '../http/sign-in';
import { envelope, errorEnvelope, sendEnvelope } from '../http/envelope';
import { answerableError } from '../http/failures';
import { RateLimit } from '../http/rate-limit';
import { type DomainError, commonErrors } from '../lib/errors';
import type { ActionContext, AnyAction, AuthSession, AuthUser } from './action';
import { apiErrors } from './errors';
import { refuseDeepJson } from '../http/json-depth';
import { checkJsonShape, compileParams, describeValidationError, hintsOf } from './validation';
import { resultProblems, resultsChecked } from './result-check';

export const MAX_BODY_BYTES = 1024 * 1024;

/** A field named in domain terms ('amount'; '' for params itself) as the caller sent it ('params.amount'). */
export function wireField(field: string): string {
  return field ? `params.${field}` : 'params';
}

/** Resolves a bearer token to its user and session, or throws a DomainError (401/1001/1003). */
export type Authenticator = BearerAuthenticator<{ user: AuthUser; session: AuthSession }>;

/** The role wrapper: members never reach an 'admin' or 'owner' action; a pending password reset allows only a few. */
export function checkRole(action: AnyAction, user: AuthUser): void {
  if (!action.duringPasswordChange) refusePendingPasswordChange({ user });
  if (action.auth === 'owner' && user.role !== 'owner') {
    throw apiErrors.ownerOnly(action.name).with({ role: user.role });
  }
  if (action.auth === 'admin' && user.role === 'member') {
    throw apiErrors.adminOnly(action.name).with({ role: user.role });
  }
}

export interface ApiRouterOptions {
  app: AppContext;
  actions: readonly AnyAction[];
  authenticator: Authenticator;
}

/**
 * POST /api: the one wrapper around every action — body checks, lookup, rate limits,
 * authentication, params validation, the handler, and the envelope with its HTTP status.
 */
export function createApiRouter({ app, actions, authenticator }: ApiRouterOptions) {
  const byName = new Map<string, AnyAction>();
  const checkResults = resultsChecked();
  for (const action of actions) {
    if (byName.has(action.name)) throw new Error(`action ${action.name} is defined twice`);
    // Params validators are compiled on an action's first call, not here: compiling all of them
    // took ~110 ms of every start. api-framework.test.ts compiles every action's schema.
    byName.set(action.name, action);
  }
  const limits = app.settings.get().rateLimit;
  const perAddress = new RateLimit('requests per address', limits.apiPerAddress);
  const perToken = new RateLimit('requests per token', limits.apiPerToken);
  const authPerAddress = new RateLimit('sign-in attempts per address', limits.authPerAddress);
  app.settings.onChange((settings) => {
    perAddress.setPoints(settings.rateLimit.apiPerAddress);
    perToken.setPoints(settings.rateLimit.apiPerToken);
    authPerAddress.setPoints(settings.rateLimit.authPerAddress);
  });

  const router = express.Router();

  const sendError = (res: Response, error: DomainError) => sendEnvelope(res, error.status, errorEnvelope(error, wireField), error.headers);

  // body-parser types its middleware for connect's request class; Express's Request is the same object.
  const jsonBody: (req: Request, res: Response, next: (error?: unknown) => void) => void = express.json({
    limit: MAX_BODY_BYTES,
    strict: true,
    type: () => true,
    verify: refuseDeepJson,
  });

  router.all('/api', (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'OPTIONS') {
      // Preflight: answered (CORS headers come from the CORS wrapper when an origin is allowed).
      res.status(204).end();
      return;
    }
    if (req.method !== 'POST') {
      sendError(res, commonErrors.invalid('Use POST /api with a JSON body {"action": "group.method", "params": {...}}.').withHeaders({ Allow: 'POST' }));
      return;
    }
    const type = req.headers['content-type'] ?? '';
    if (!/^application\/json\s*(;|$)/i.test(type)) {
      sendError(res, commonErrors.invalid(`Content-Type must be application/json (got "${type || 'none'}").`));
      return;
    }
    jsonBody(req, res, (error?: unknown) => {
      if (error) {
        sendError(res, unreadableBody(error, `${MAX_BODY_BYTES / 1024 / 1024} MiB`));
        return;
      }
      void handle(req, res).catch(next);
    });
  });

  async function handle(req: Request, res: Response): Promise<void> {
    const requestId = randomUUID();
    const started = performance.now();
    const clientAddress = normalizeAddress(req.socket.remoteAddress);
    let actionName = '-';
    let code = 200;
    try {
      const body = req.body as unknown;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw commonErrors.invalid('The body must be a JSON object {"action": "...", "params": {...}}.');
      }
      const shapeProblem = checkJsonShape(body);
      if (shapeProblem) throw commonErrors.invalid(`Invalid request: ${shapeProblem}.`);
      const { action: name, params: rawParams, ...rest } = body as Record<string, unknown>;
      const extra = Object.keys(rest);
      if (extra.length > 0) throw commonErrors.invalid(`Unknown top-level field "${extra[0]}"; the body has only "action" and "params".`);
      if (typeof name !== 'string' || name.length === 0) throw commonErrors.invalid('Missing "action" (a string like "user.login").');
      actionName = name.slice(0, 64);
      const params = rawParams === undefined ? {} : rawParams;
      if (typeof params !== 'object' || params === null || Array.isArray(params)) {
        throw commonErrors.invalid('"params" must be a JSON object ({} when there are none).');
      }
      const action = byName.get(name);
      if (!action) throw commonErrors.notFound(`Unknown action "${actionName}".`);

      const settings = app.settings.get();
      if (!(settings.rateLimit.exemptLoopback && isLoopback(clientAddress))) await perAddress.consumeAddress(clientAddress);
      if (action.rateLimit === 'auth') await authPerAddress.consumeAddress(clientAddress);

      let user: AuthUser | null = null;
      let session: AuthSession | null = null;
      const token = bearerToken(req);
      if (action.auth !== 'public') {
        if (token === null) throw commonErrors.unauthorized('Sign in first: this action needs "Authorization: Bearer <token>".');
        if (token === '') throw commonErrors.unauthorized('The Authorization header must be "Bearer <token>".');
        await perToken.consume(token);
        ({ user, session } = await authenticator.authenticate(token));
        checkRole(action, user);
      }

      const validate = compileParams(action.params);
      if (!validate(params)) {
        const first = validate.errors?.[0];
        if (!first) throw new Error(`params validation of ${name} failed without naming an error`);
        const { message, field, rule } = describeValidationError(first, hintsOf(action.params));
        throw commonErrors.invalid(message).with({ field, rule });
      }

      const fromThisComputer = isFromThisComputer(clientAddress, req.headers);
      const ctx: ActionContext = { app, requestId, clientAddress, fromThisComputer, token: user ? token : null, user, session };
      const data = await action.handler(params, ctx);
      if (checkResults && action.result) {
        const problems = resultProblems(action.result, data);
        if (problems.length > 0) throw commonErrors.internal(`The answer of ${name} does not match its result schema: ${problems.join('; ')}.`);
      }
      sendEnvelope(res, 200, envelope(200, 'ok', data ?? null));
    } catch (error) {
      const known = answerableError(error, { log: app.log, requestId, what: 'action', fields: { action: actionName } });
      code = known.code;
      sendError(res, known);
    } finally {
      app.log.debug('api', { requestId, action: actionName, code, ms: Math.round((performance.now() - started) * 10) / 10 });
    }
  }

  return router;
}
