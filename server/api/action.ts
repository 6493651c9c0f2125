import { Type, type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import type { AppContext } from '../app-context';
import type { ErrorRow } from '../lib/errors';
import type { WritePolicy } from './write-policies';

/** The authenticated caller of an action. */
export interface AuthUser {
  id: string;
  username: string;
  role: 'owner' | 'admin' | 'member';
  /** A password reset is pending: only the actions marked `duringPasswordChange` answer. */
  mustChangePassword: boolean;
}

export interface AuthSession {
  id: string;
  userId: string;
  expiresAt: number;
}

export interface ActionContext {
  readonly app: AppContext;
  readonly requestId: string;
  /** Remote address of the HTTP caller (no proxy headers are trusted). */
  readonly clientAddress: string;
  /**
   * The caller is a program on this computer: a loopback address AND no proxy header
   * (Forwarded, X-Forwarded-For, X-Real-IP). A reverse proxy on this machine relays callers from
   * anywhere; they must not count as "this computer" for sign-ups, settings or desktop sign-in.
   */
  readonly fromThisComputer: boolean;
  /** The raw bearer token, when one was sent and accepted. */
  readonly token: string | null;
  readonly user: AuthUser | null;
  readonly session: AuthSession | null;
}

export interface UserActionContext extends ActionContext {
  readonly token: string;
  readonly user: AuthUser;
  readonly session: AuthSession;
}

/**
 * Who may call an action: anyone; any signed-in account; the owner and the admins the owner named
 * (server settings, snapshots, the household); the owner alone (roles). Members of the household
 * get 403 (code 1004) from 'admin' and 'owner' actions.
 */
export type ActionAuth = 'public' | 'user' | 'admin' | 'owner';

/** Documentation of one error an action can answer with: its catalogue row (code and status) and when. */
export type ActionErrorDoc = readonly [error: ErrorRow, when: string];

/** What every action declares besides its result and handler. */
interface ActionBase<S extends TSchema, A extends ActionAuth> {
  /** One line for docs/api.md. */
  summary: string;
  /** Longer notes for docs/api.md (rules, units, decisions). */
  notes?: string;
  auth: A;
  params: S;
  errors?: readonly ActionErrorDoc[];
  /** Still callable while a password reset is pending (changing the password, signing out). */
  duringPasswordChange?: boolean;
  /** Extra rate-limit bucket on top of the global ones. */
  rateLimit?: 'auth';
  /** What its writes need around them (a snapshot first; undo), applied by the pipeline: write-policies.ts. */
  writes?: WritePolicy<Static<S>>;
}

type HandlerContext<A extends ActionAuth> = A extends 'public' ? ActionContext : UserActionContext;

/** An action as a domain writes it: everything but its name, which is its key in the domain's action map. */
export interface ActionSpec<S extends TSchema = TSchema, A extends ActionAuth = ActionAuth, R = unknown> extends ActionBase<S, A> {
  /**
   * Shape of `data` on success (server/api/result.ts): types the handler's result and the UI
   * client's, is rendered into docs/api.md, and is checked against every real answer in tests.
   */
  result: TSchema;
  handler(params: Static<S>, ctx: HandlerContext<A>): Promise<R> | R;
}

/** An action of the /api registry: its spec and its name ('group.method'). */
export interface ActionDefinition<S extends TSchema = TSchema, A extends ActionAuth = ActionAuth, R = unknown> extends ActionSpec<S, A, R> {
  readonly name: string;
}

/**
 * Types one action's spec: params and auth are inferred from it, and the handler must return what
 * `result` describes (the result type the UI client sees is the schema's).
 */
export function defineAction<S extends TSchema, A extends ActionAuth, T extends TSchema>(
  spec: ActionBase<S, A> & { result: T; handler(params: Static<S>, ctx: HandlerContext<A>): Promise<Static<T>> | Static<T> },
): ActionSpec<S, A, Static<T>>;
export function defineAction(spec: ActionSpec): ActionSpec {
  return spec;
}

/**
 * A domain's actions as a map from name ('group.method') to spec. The map's type is what the UI's
 * typed client is built from (`ActionDeclarations` in server/domains.ts), so there is nothing to generate.
 */
export function defineActions<M extends Record<string, ActionSpec>>(specs: M): { readonly [K in keyof M]: M[K] & { readonly name: K } } {
  const out: Record<string, AnyAction> = {};
  for (const [name, spec] of Object.entries(specs)) {
    if (!/^[a-z][a-zA-Z0-9]*\.[a-z][a-zA-Z0-9]*$/.test(name)) throw new Error(`bad action name ${name}`);
    out[name] = { ...spec, name };
  }
  return out as { readonly [K in keyof M]: M[K] & { readonly name: K } };
}

/** The actions of a domain, by name. */
export type ActionMap = Readonly<Record<string, AnyAction>>;

/** A params object that refuses unknown keys (typos and smuggled fields get a clear 400). */
export function Params<T extends TProperties>(properties: T): TObject<T> {
  return Type.Object(properties, { additionalProperties: false });
}

export type AnyAction = ActionDefinition;
