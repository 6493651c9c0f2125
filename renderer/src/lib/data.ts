import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { ApiCallError, call, type ActionName, type ParamsOf, type ResultOf } from '../api/client';

/**
 * A tiny data layer: screens read with useApi(action, params); any write calls invalidate(), which
 * bumps a version every reader depends on, so the numbers on every screen follow at once.
 */
let version = 0;
const listeners = new Set<() => void>();
export function invalidate(): void {
  version++;
  for (const listener of listeners) listener();
}
function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
export function useDataVersion(): number {
  return useSyncExternalStore(subscribe, () => version);
}

export interface ApiState<T> {
  data: T | undefined;
  error: ApiCallError | null;
  loading: boolean;
  reload: () => void;
}

/** Read an action's result; `params === null` skips the call. Keeps the last data while reloading. */
export function useApi<N extends ActionName>(action: N, params: ParamsOf<N> | null, options: { live?: boolean } = {}): ApiState<ResultOf<N>> {
  const dataVersion = useDataVersion();
  const [state, setState] = useState<{ data: ResultOf<N> | undefined; error: ApiCallError | null; loading: boolean }>({ data: undefined, error: null, loading: params !== null });
  const [nonce, setNonce] = useState(0);
  const key = params === null ? null : JSON.stringify(params);
  const live = options.live ?? true;
  const liveVersion = live ? dataVersion : 0;
  useEffect(() => {
    if (key === null) {
      setState((s) => ({ ...s, loading: false }));
      return;
    }
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    call(action, JSON.parse(key) as ParamsOf<N>, { signal: controller.signal }).then(
      (data) => {
        if (!controller.signal.aborted) setState({ data, error: null, loading: false });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        const apiError = error instanceof ApiCallError ? error : new ApiCallError(500, String((error as Partial<Error> | null | undefined)?.message ?? error));
        setState((s) => ({ data: s.data, error: apiError, loading: false }));
      },
    );
    return () => controller.abort();
  }, [action, key, liveVersion, nonce]);
  const reload = useCallback(() => setNonce((n) => n + 1), []);
  return { ...state, reload };
}

/** Run a write with busy/error state; invalidates readers on success. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiCallError | null>(null);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  const run = useCallback(async <T>(fn: () => Promise<T>, options: { invalidate?: boolean } = {}): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      const result = await fn();
      if (options.invalidate !== false) invalidate();
      return result;
    } catch (err) {
      const apiError = err instanceof ApiCallError ? err : new ApiCallError(500, String((err as Partial<Error> | null | undefined)?.message ?? err));
      if (mounted.current) setError(apiError);
      return undefined;
    } finally {
      if (mounted.current) setBusy(false);
    }
  }, []);
  return { run, busy, error, setError };
}

/** What useAction gives: a dialog handed its screen's action shows the same busy and error state. */
export type ActionState = ReturnType<typeof useAction>;

export { call };
