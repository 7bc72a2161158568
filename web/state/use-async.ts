import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

/** A value being loaded: what it was, whether it is loading again, and the last error. */
export interface AsyncValue<T> {
  readonly data?: T;
  readonly error?: unknown;
  readonly loading: boolean;
  /** Loads again (keeping the old data on show meanwhile). */
  readonly reload: () => void;
}

/**
 * Runs `load` when the component mounts and whenever `deps` change; a result that arrives
 * after a newer load started (or after unmount) is dropped, so a slow answer never
 * overwrites a fresh one.
 */
export function useAsync<T>(load: () => Promise<T>, deps: readonly unknown[]): AsyncValue<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const generation = useRef(0);
  // The caller's deps decide when to load.
  const run = useCallback(() => {
    const mine = ++generation.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => {
        if (generation.current === mine) setState({ data, loading: false });
      },
      (error: unknown) => {
        if (generation.current === mine) setState((s) => ({ ...s, error, loading: false }));
      },
    );
  }, deps);
  useEffect(() => {
    run();
    return () => {
      generation.current++;
    };
  }, [run]);
  return { ...state, reload: run };
}
