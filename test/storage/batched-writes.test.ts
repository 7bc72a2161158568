import { describe, expect, it } from 'vitest';
import { BatchedWrites } from '../../src/storage/batched-writes.js';

/** A writer that records its batches and numbers rows from 1, failing on the values in `bad`. */
function recordingWriter(bad: ReadonlySet<string> = new Set()) {
  const batches: string[][] = [];
  const singles: string[] = [];
  let next = 1;
  const deferred: (() => void)[] = [];
  const writes = new BatchedWrites<string>({
    write: async (items) => {
      batches.push([...items]);
      if (items.some((i) => bad.has(i))) throw new Error('bad row in the batch');
      return items.map(() => next++);
    },
    writeOne: async (item) => {
      singles.push(item);
      if (bad.has(item)) throw new Error(`cannot write ${item}`);
      return next++;
    },
    maxBatch: 4,
    defer: (run) => deferred.push(run),
  });
  return { writes, batches, singles, deferred };
}

describe('BatchedWrites', () => {
  it('writes what was added close together in one batch, each add getting its own id', async () => {
    const { writes, batches, deferred } = recordingWriter();
    const ids = Promise.all([writes.add('a'), writes.add('b'), writes.add('c')]);
    expect(batches).toEqual([]);
    expect(deferred).toHaveLength(1);
    deferred[0]?.();
    expect(await ids).toEqual([1, 2, 3]);
    expect(batches).toEqual([['a', 'b', 'c']]);
  });

  it('writes at once when the batch is full, without waiting for the deferred run', async () => {
    const { writes, batches, deferred } = recordingWriter();
    const ids = Promise.all(['a', 'b', 'c', 'd'].map((x) => writes.add(x)));
    expect(await ids).toEqual([1, 2, 3, 4]);
    expect(batches).toEqual([['a', 'b', 'c', 'd']]);
    for (const run of deferred.splice(0)) run();
    expect(batches).toHaveLength(1);
  });

  it('flush writes what is pending and waits for it', async () => {
    const { writes, batches } = recordingWriter();
    const id = writes.add('a');
    await writes.flush();
    expect(batches).toEqual([]); // a batch of one is written alone
    expect(await id).toBe(1);
    await writes.flush(); // nothing pending: returns
  });

  it('tries each row alone when the batch fails, so only the bad one is refused', async () => {
    const { writes, singles, deferred } = recordingWriter(new Set(['bad']));
    const outcomes = Promise.allSettled([writes.add('a'), writes.add('bad'), writes.add('c')]);
    deferred[0]?.();
    const settled = await outcomes;
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(singles).toEqual(['a', 'bad', 'c']);
    expect(settled[1]?.status === 'rejected' && String(settled[1].reason)).toMatch(/cannot write bad/);
  });
});
