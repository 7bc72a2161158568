/**
 * How a long-running verb (`start`, `serve`) hears that it should stop, and how long stopping
 * may take. Ctrl-C sends SIGINT, a process manager (systemd, Docker, pm2, `kill`) SIGTERM, a
 * closed terminal SIGHUP: all three mean "close the gateway and every server, then exit".
 */
export const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** How long a graceful stop may take before the process exits anyway. */
export const STOP_BOUND_MS = 15_000;

/** Resolves with the first stop signal that arrives. */
export function untilStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const done = (signal: NodeJS.Signals) => {
      for (const s of STOP_SIGNALS) process.off(s, done);
      resolve(signal);
    };
    for (const s of STOP_SIGNALS) process.once(s, done);
  });
}

/**
 * Bounds a graceful stop that has begun: a second stop signal a second or more after the first
 * (wrappers such as npm pass the terminal's one Ctrl-C on too, so a repeat within a second is
 * that echo) exits at once, and so does a stop still running after `boundMs`. Exiting runs the
 * stdio transport's exit hook, which still ends every server's process group. Returns the
 * function to call once the stop is complete.
 */
export function boundStop(
  options: { boundMs?: number; onForce?: (why: 'signal' | 'timeout') => void } = {},
): () => void {
  const began = Date.now();
  const force = (why: 'signal' | 'timeout') => {
    options.onForce?.(why);
    process.exit(why === 'signal' ? 130 : 1);
  };
  const onSignal = () => {
    if (Date.now() - began >= 1000) force('signal');
  };
  for (const s of STOP_SIGNALS) process.on(s, onSignal);
  const timer = setTimeout(() => force('timeout'), options.boundMs ?? STOP_BOUND_MS);
  timer.unref();
  return () => {
    clearTimeout(timer);
    for (const s of STOP_SIGNALS) process.off(s, onSignal);
  };
}
