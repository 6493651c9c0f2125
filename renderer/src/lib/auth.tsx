import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { navigate } from './router';
import { call, onSessionEnded, setToken, type ApiCallError, type ResultOf } from '../api/client';

/**
 * The sign-in session. The token is kept in localStorage so PennyPost stays signed in across
 * restarts (decision in docs/ui.md: the server listens on loopback, the page has a strict CSP and no
 * third-party code; issue 10 moves it behind Electron's safeStorage).
 */
export interface Session {
  token: string;
  expiresAt: number;
  user: { id: string; username: string; email: string };
}
export type SignedOutReason = 'expired' | 'revoked' | 'gone' | 'signedOut' | null;

const STORAGE_KEY = 'pennypost.session';

function load(): Session | null {
  try {
    const raw = localStorage.getItem(STORAGE_KEY);
    if (!raw) return null;
    const session = JSON.parse(raw) as Session;
    if (typeof session.token !== 'string' || typeof session.expiresAt !== 'number') return null;
    return session;
  } catch {
    return null;
  }
}

interface AuthValue {
  session: Session | null;
  reason: SignedOutReason;
  signIn(result: ResultOf<'user.login'>): void;
  signOut(): Promise<void>;
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

  const end = useCallback((reason: SignedOutReason) => {
    localStorage.removeItem(STORAGE_KEY);
    setToken(null);
    setState({ session: null, reason });
  }, []);

  useEffect(() => {
    onSessionEnded((error: ApiCallError) => end(error.code === 1003 ? 'expired' : error.code === 1001 ? 'gone' : 'revoked'));
  }, [end]);

  // Check a remembered token once at start (in the background: the screens load meanwhile).
  const token = state.session?.token;
  useEffect(() => {
    if (!token) return;
    call('user.verifyToken', { token }).catch((error: ApiCallError) => {
      if (error.code === 401 || error.code === 1003 || error.code === 1001) end(error.code === 1003 ? 'expired' : error.code === 1001 ? 'gone' : 'revoked');
    });
  }, [token, end]);

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
      signIn(result) {
        const session: Session = { token: result.token, expiresAt: result.expiresAt, user: { id: result.id, username: result.username, email: result.email ?? '' } };
        localStorage.setItem(STORAGE_KEY, JSON.stringify(session));
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
    }),
    [state, end],
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
