import type { AppContext } from '../app-context';
import { isLoopback } from '../http/addresses';
import type { Authenticator as BearerAuthenticator } from '../http/bearer';
import { refusePendingPasswordChange } from '../http/sign-in';
import { RateLimit } from '../http/rate-limit';
import { commonErrors } from '../lib/errors';
import type { ActionContext, AnyAction, AuthSession, AuthUser } from './action';
import { apiErrors } from './errors';
import { resultProblems, resultsChecked } from './result-check';
import { compileParams, describeValidationError, hintsOf } from './validation';
import { beforeWrites } from './write-policies';

/** Resolves a bearer token to its user and session, or throws a DomainError (401/1001/1003). */
export type Authenticator = BearerAuthenticator<{ user: AuthUser; session: AuthSession }>;

/** One call of an action, as the wire (or an in-process caller) hands it over. */
export interface ActionCall {
  /** The action's name as sent (not yet known to exist). */
  name: string;
  /** The params object as sent (not yet validated). */
  params: object;
  /** The bearer token: null when none was sent, '' when the Authorization header was malformed. */
  token: string | null;
  requestId: string;
  clientAddress: string;
  fromThisComputer: boolean;
}

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

/** Runs one call and gives the action's data, or throws the DomainError the envelope reports. */
export type ActionCaller = (call: ActionCall) => Promise<unknown>;

/**
 * Everything between "this is an action call" and the action's data, the same for every caller:
 * lookup, rate limits, authentication and roles, params validation, the action's write policy
 * (a snapshot first: write-policies.ts), the handler, and (in tests)
 * the check of the answer against the action's result schema. The HTTP router (router.ts) wraps
 * it with the body checks and the envelope; the in-process test tier calls it without a socket.
 */
export function actionCaller({ app, actions, authenticator }: { app: AppContext; actions: readonly AnyAction[]; authenticator: Authenticator }): ActionCaller {
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

  return async ({ name, params, token, requestId, clientAddress, fromThisComputer }) => {
    const action = byName.get(name);
    if (!action) throw commonErrors.notFound(`Unknown action "${name.slice(0, 64)}".`);

    const settings = app.settings.get();
    if (!(settings.rateLimit.exemptLoopback && isLoopback(clientAddress))) await perAddress.consumeAddress(clientAddress);
    if (action.rateLimit === 'auth') await authPerAddress.consumeAddress(clientAddress);

    let user: AuthUser | null = null;
    let session: AuthSession | null = null;
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

    const ctx: ActionContext = { app, requestId, clientAddress, fromThisComputer, token: user ? token : null, user, session };
    await beforeWrites(app, action.writes, params as never);
    const data = await action.handler(params, ctx);
    if (checkResults) {
      const problems = resultProblems(action.result, data);
      if (problems.length > 0) throw commonErrors.internal(`The answer of ${name} does not match its result schema: ${problems.join('; ')}.`);
    }
    return data ?? null;
  };
}
