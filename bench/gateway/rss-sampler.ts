import { rssKiB } from './processes.js';

/** The largest RSS seen while sampling: the process itself, and its children summed. */
export interface RssPeak {
  readonly mainKiB: number;
  readonly childrenKiB: number;
}

/**
 * Samples VmRSS of `pid` and of `children` (summed) every `everyMs` until `stop()`, which
 * returns the peaks. Sampling /proc is cheap (a small read per process), so it runs in the
 * driving process without taxing the target.
 */
export function sampleRss(pid: number, children: readonly number[], everyMs = 20): { stop(): RssPeak } {
  let mainKiB = 0;
  let childrenKiB = 0;
  const sample = () => {
    mainKiB = Math.max(mainKiB, rssKiB(pid) ?? 0);
    let sum = 0;
    for (const c of children) sum += rssKiB(c) ?? 0;
    childrenKiB = Math.max(childrenKiB, sum);
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return { mainKiB, childrenKiB };
    },
  };
}
