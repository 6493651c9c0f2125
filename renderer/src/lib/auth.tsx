import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { navigate } from './router';
import { ApiCallError, call, onAccountChanged, onSessionEnded, setToken, type AccountNews, type ResultOf } from '../api/client';

/**
 * The sign-in session. The token is kept in localStorage so PennyPost stays signed in across
 * restarts (decision in docs/ui.md: the server listens on loopback, the page has a strict CSP and no
 * third-party code; issue 10 moves it behind Electron's safeStorage).
 */
export type Role = 'owner' | 'admin' | 'member';
export interface SessionUser {
  id: string;
  username: string;
  email: string;
  /** owner, admin or member of the household; null until the server said (a session stored by an older version). */
  role: Role | null;
  /** After a password reset: nothing but choosing a new password until it is done. */
  mustChangePassword: boolean;
}
export interface Session {
  token: string;
  expiresAt: number;
  user: SessionUser;
}
export type SignedOutReason = 'expired' | 'revoked' | 'gone' | 'disabled' | 'signedOut' | null;
/** What user.login, user.register and user.desktopSignIn answer. */
export type SignInResult = ResultOf<'user.login'>;

const STORAGE_KEY = 'pennypost.session';

export function asRole(value: unknown): Role | null {
  return value === 'owner' || value === 'admin' || value === 'member' ? value : null;
}

/** The owner and admins run the server (settings, snapshots, the household); members have their own ledger only. */
export function isManager(session: Session | null): boolean {
  const role = session?.user.role;
  return role === 'owner' || role === 'admin';
}

function load(): Session | null {
  try {
    const raw = localStorage.getItem(STORAGE_KEY);
    if (!raw) return null;
    const stored = JSON.parse(raw) as { token?: unknown; expiresAt?: unknown; user?: Partial<Record<keyof SessionUser, unknown>> };
    if (typeof stored.token !== 'string' || typeof stored.expiresAt !== 'number') return null;
    const user = stored.user ?? {};
    return {
      token: stored.token,
      expiresAt: stored.expiresAt,
      user: {
        id: typeof user.id === 'string' ? user.id : '',
        username: typeof user.username === 'string' ? user.username : '',
        email: typeof user.email === 'string' ? user.email : '',
        role: asRole(user.role),
        mustChangePassword: user.mustChangePassword === true,
      },
    };
  } catch {
    return null;
  }
}

/** Someone has signed in from this browser before (the sign-in screen then says "Welcome back", else "Welcome"). */
const SIGNED_IN_BEFORE_KEY = 'pennypost.signedInBefore';

function store(session: Session): void {
  localStorage.setItem(STORAGE_KEY, JSON.stringify(session));
  localStorage.setItem(SIGNED_IN_BEFORE_KEY, '1');
}

export function signedInHereBefore(): boolean {
  try {
    return localStorage.getItem(SIGNED_IN_BEFORE_KEY) === '1' || localStorage.getItem(STORAGE_KEY) !== null;
  } catch {
    return false;
  }
}

interface AuthValue {
  session: Session | null;
  reason: SignedOutReason;
  /** `password`: the one just typed; kept in memory only, for the new-password screen after a reset. */
  signIn: (result: SignInResult, options?: { password?: string }) => void;
  signOut: () => Promise<void>;
  /** The server told something new about the signed-in account (verifyToken, changePassword, …). */
  updateUser: (patch: Partial<Omit<SessionUser, 'id'>>) => void;
  /** The temporary password this session was opened with, while a new one must be chosen. */
  temporaryPassword: string | null;
}
const AuthContext = createContext<AuthValue | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<{ session: Session | null; reason: SignedOutReason }>(() => {
    const session = load();
    if (session && session.expiresAt <= Date.now()) {
      localStorage.removeItem(STORAGE_KEY);
      return { session: null, reason: 'expired' };
    }
    setToken(session?.token ?? null);
    return { session, reason: null };
  });
  const temporaryPassword = useRef<string | null>(null);

  const end = useCallback((reason: SignedOutReason) => {
    localStorage.removeItem(STORAGE_KEY);
    setToken(null);
    temporaryPassword.current = null;
    setState({ session: null, reason });
  }, []);

  const updateUser = useCallback((patch: Partial<Omit<SessionUser, 'id'>>, token?: string) => {
    setState((current) => {
      if (!current.session || (token !== undefined && current.session.token !== token)) return current;
      const session: Session = { ...current.session, user: { ...current.session.user, ...patch } };
      store(session);
      return { session, reason: current.reason };
    });
    if (patch.mustChangePassword === false) temporaryPassword.current = null;
  }, []);

  useEffect(() => {
    onSessionEnded((error: ApiCallError) => end(error.code === 1003 ? 'expired' : error.code === 1001 ? 'gone' : 'revoked'));
    onAccountChanged((news: AccountNews) => {
      if (news.kind === 'disabled') end('disabled');
      else if (news.kind === 'mustChangePassword') updateUser({ mustChangePassword: true });
      else {
        const role = asRole(news.role);
        if (role) updateUser({ role });
      }
    });
  }, [end, updateUser]);

  // Check a remembered token once at start (in the background: the screens load meanwhile), and
  // take the account's current role and state from the answer.
  const token = state.session?.token;
  useEffect(() => {
    if (!token) return;
    call('user.verifyToken', { token }).then(
      ({ user }) => updateUser({ username: user.username, email: user.email, role: asRole(user.role), mustChangePassword: user.mustChangePassword }, token),
      (error: unknown) => {
        if (!(error instanceof ApiCallError)) return;
        if (error.code === 401 || error.code === 1003 || error.code === 1001) end(error.code === 1003 ? 'expired' : error.code === 1001 ? 'gone' : 'revoked');
        else if (error.code === 1004) end('disabled');
      },
    );
  }, [token, end, updateUser]);

  // Expiry while the app is open.
  const expiresAt = state.session?.expiresAt;
  useEffect(() => {
    if (!expiresAt) return;
    const delay = Math.min(expiresAt - Date.now(), 2 ** 31 - 1);
    const timer = window.setTimeout(() => end('expired'), Math.max(0, delay));
    return () => window.clearTimeout(timer);
  }, [expiresAt, end]);

  const value = useMemo<AuthValue>(
    () => ({
      session: state.session,
      reason: state.reason,
      temporaryPassword: state.session?.user.mustChangePassword ? temporaryPassword.current : null,
      signIn(result, options = {}) {
        const session: Session = {
          token: result.token,
          expiresAt: result.expiresAt,
          user: { id: result.id, username: result.username, email: result.email, role: asRole(result.role), mustChangePassword: result.mustChangePassword },
        };
        temporaryPassword.current = session.user.mustChangePassword ? (options.password ?? null) : null;
        store(session);
        setToken(session.token);
        setState({ session, reason: null });
      },
      async signOut() {
        try {
          await call('user.logout', {});
        } catch {
          /* signed out locally either way */
        }
        end('signedOut');
        navigate('/login', { replace: true });
      },
      updateUser: (patch) => updateUser(patch),
    }),
    [state, end, updateUser],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthValue {
  const value = useContext(AuthContext);
  if (!value) throw new Error('AuthProvider missing');
  return value;
}

export function useSession(): Session {
  const { session } = useAuth();
  if (!session) throw new Error('not signed in');
  return session;
}
