import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

/** A request the person started: nothing yet, under way, or how it ended. */
export interface RequestState<T> {
  readonly loading: boolean;
  readonly data?: T;
  readonly error?: unknown;
}

/**
 * A request made on demand ("Read", "Get"): `run` starts it, aborting the one before; leaving
 * the page aborts it too, so the API stops what it started for nobody. An aborted request
 * leaves no error behind. `clear` forgets what there was.
 */
export function useRequest<T>(): {
  readonly state: RequestState<T>;
  readonly run: (load: (signal: AbortSignal) => Promise<T>) => void;
  readonly clear: () => void;
} {
  const [state, setState] = useState<RequestState<T>>({ loading: false });
  const current = useRef<AbortController | undefined>(undefined);

  useEffect(() => () => current.current?.abort(), []);

  const run = useCallback((load: (signal: AbortSignal) => Promise<T>) => {
    current.current?.abort();
    const controller = new AbortController();
    current.current = controller;
    setState((s) => ({ loading: true, ...(s.data !== undefined && { data: s.data }) }));
    load(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setState({ loading: false, data });
      },
      (error: unknown) => {
        if (!controller.signal.aborted) setState({ loading: false, error });
      },
    );
  }, []);

  const clear = useCallback(() => {
    current.current?.abort();
    current.current = undefined;
    setState({ loading: false });
  }, []);

  return { state, run, clear };
}
