import { describe, expect, it } from 'vitest';
import { latestValues } from '../../src/host/latest-values.js';

describe('latestValues', () => {
  it('yields now, then the latest after changes, skipping values a slow reader missed', async () => {
    let value = 0;
    const listeners = new Set<() => void>();
    const set = (v: number) => {
      value = v;
      for (const l of listeners) l();
    };
    const controller = new AbortController();
    const seen: number[] = [];
    const reader = (async () => {
      for await (const v of latestValues(
        (on) => {
          listeners.add(on);
          return () => listeners.delete(on);
        },
        () => value,
        controller.signal,
      )) {
        seen.push(v);
        if (v === 0) {
          // While the reader is busy, three changes happen; it then sees only the last.
          set(1);
          set(2);
          set(3);
        }
        if (v === 3) controller.abort();
      }
    })();
    await reader;
    expect(seen).toEqual([0, 3]);
    expect(listeners.size).toBe(0);
  });
});
