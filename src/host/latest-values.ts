/**
 * An async iterator over a changing value: the value now, then after every change. A slow
 * consumer skips to the latest value instead of queueing stale ones. Ends when `signal`
 * aborts.
 */
export async function* latestValues<T>(
  subscribe: (onChange: () => void) => () => void,
  current: () => T,
  signal?: AbortSignal,
): AsyncGenerator<T> {
  let pending = true;
  let wake: (() => void) | undefined;
  const unsubscribe = subscribe(() => {
    pending = true;
    wake?.();
  });
  const onAbort = () => wake?.();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    while (!signal?.aborted) {
      if (!pending) await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
      if (signal?.aborted || !pending) continue;
      pending = false;
      yield current();
    }
  } finally {
    unsubscribe();
    signal?.removeEventListener('abort', onAbort);
  }
}
