import type { Host } from '../../src/host/host.js';

/**
 * Waiting in tests for something that happens in the background (a server connecting, a
 * catalog filling), by polling with a bound: never a bare sleep, never an endless loop.
 */
export async function eventually<T>(
  probe: () => Promise<T> | T,
  done: (value: T) => boolean,
  options: { readonly what: string; readonly timeoutMs?: number; readonly everyMs?: number },
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`never ${options.what}: ${JSON.stringify(value)?.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, options.everyMs ?? 20));
  }
}

/** Waits until the host's catalog offers `name`. */
export async function catalogHas(host: Host, name: string, timeoutMs = 20_000): Promise<void> {
  await eventually(
    () => host.catalog().lookup(name) !== undefined,
    (found) => found,
    { what: `saw ${name} in the catalog`, timeoutMs },
  );
}
