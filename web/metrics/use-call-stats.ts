import { useEffect, useState } from 'preact/hooks';
import type { ApiCallStats } from '../../src/gateway/api/api-types.js';
import { useApp } from '../shell/app-context.js';

/** How often the charts ask for fresh figures: once per slot of the host's window. */
const EVERY_MS = 5_000;

/**
 * `GET /api/metrics/calls`, asked now and every few seconds while the page shows, one request
 * for all charts on it. A failed poll keeps the last figures and says why.
 */
export function useCallStats(): { readonly stats?: ApiCallStats; readonly error?: unknown } {
  const { client } = useApp();
  const [state, setState] = useState<{ stats?: ApiCallStats; error?: unknown }>({});
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = () => {
      client.get<ApiCallStats>('/api/metrics/calls').then(
        (stats) => {
          if (!stopped) setState({ stats });
        },
        (error: unknown) => {
          if (!stopped) setState((s) => ({ ...s, error }));
        },
      );
      timer = setTimeout(poll, EVERY_MS);
    };
    poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [client]);
  return state;
}
