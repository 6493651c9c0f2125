import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { AppContext } from '../app-context';
import { isFromThisComputer, normalizeAddress } from '../http/addresses';
import { bearerToken } from '../http/bearer';
import { unreadableBody } from '../http/body-errors';
import { envelope, errorEnvelope, sendEnvelope } from '../http/envelope';
import { answerableError } from '../http/failures';
import { type DomainError, commonErrors } from '../lib/errors';
import type { ActionCaller } from './call-action';
import { refuseDeepJson } from '../http/json-depth';
import { checkJsonShape } from './validation';

export const MAX_BODY_BYTES = 1024 * 1024;

/** A field named in domain terms ('amount'; '' for params itself) as the caller sent it ('params.amount'). */
export function wireField(field: string): string {
  return field ? `params.${field}` : 'params';
}

export interface ApiRouterOptions {
  app: AppContext;
  /** The action pipeline (call-action.ts) the router puts the wire in front of. */
  call: ActionCaller;
}

/**
 * The action and params of an /api body (parsed JSON), or the 400 that names what is wrong with it:
 * not an object, prototype keys or nesting too deep, a top-level field other than the two, no
 * action, params that are not an object.
 */
export function actionOfBody(body: unknown): { name: string; params: object } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw commonErrors.invalid('The body must be a JSON object {"action": "...", "params": {...}}.');
  }
  const shapeProblem = checkJsonShape(body);
  if (shapeProblem) throw commonErrors.invalid(`Invalid request: ${shapeProblem}.`);
  const { action: name, params: rawParams, ...rest } = body as Record<string, unknown>;
  const extra = Object.keys(rest).at(0);
  if (extra !== undefined) throw commonErrors.invalid(`Unknown top-level field "${extra}"; the body has only "action" and "params".`);
  if (typeof name !== 'string' || name.length === 0) throw commonErrors.invalid('Missing "action" (a string like "user.login").');
  const params = rawParams === undefined ? {} : rawParams;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    throw commonErrors.invalid('"params" must be a JSON object ({} when there are none).');
  }
  return { name, params };
}

/**
 * POST /api: the wire around the action pipeline (call-action.ts) — method, content type, body
 * checks, and the envelope with its HTTP status and the log line.
 */
export function createApiRouter({ app, call }: ApiRouterOptions) {
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
      const { name, params } = actionOfBody(req.body);
      actionName = name.slice(0, 64);
      const data = await call({ name, params, token: bearerToken(req), requestId, clientAddress, fromThisComputer: isFromThisComputer(clientAddress, req.headers) });
      sendEnvelope(res, 200, envelope(200, 'ok', data));
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
