import { useState } from 'preact/hooks';

/**
 * One action a person started (a save, a toggle, an answer): whether it is under way, and
 * what went wrong the last time. `run` clears the error, marks it busy, and keeps whatever
 * the action throws for an `ErrorBanner` — a check that throws before any request counts too.
 */
export function useAction(): {
  readonly busy: boolean;
  readonly error: unknown;
  readonly run: (action: () => Promise<void>) => Promise<void>;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run };
}
