import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { keepHeapLean } from '../../src/cli/lean-heap.js';

describe('keepHeapLean', () => {
  it('leaves the setting to the person who gave one, on the command line or in NODE_OPTIONS', () => {
    expect(keepHeapLean({ execArgv: ['--heap-growing-percent=30'], nodeOptions: undefined })).toBe(false);
    expect(keepHeapLean({ execArgv: ['--heap_growing_percent=30'], nodeOptions: undefined })).toBe(false);
    expect(
      keepHeapLean({ execArgv: [], nodeOptions: '--max-old-space-size=512 --heap-growing-percent=5' }),
    ).toBe(false);
  });

  it('applies it otherwise, and V8 then grows the heap less under churn', () => {
    expect(
      keepHeapLean({ execArgv: ['--inspect'], nodeOptions: '--max-old-space-size=512', percent: 10 }),
    ).toBe(true);
    // The effect, in a process of its own: the same churn with and without the setting.
    const churn = (lean: boolean) => {
      const script = `
        ${lean ? "require('node:v8').setFlagsFromString('--heap-growing-percent=10');" : ''}
        const live = []; let peak = 0;
        for (let round = 0; round < 400; round++) {
          for (let i = 0; i < 2000; i++) live.push({ a: new Array(20).fill(i), s: 'x'.repeat(50) + i });
          if (live.length > 60000) live.splice(0, 30000);
          peak = Math.max(peak, process.memoryUsage().heapTotal);
        }
        process.stdout.write(String(peak));`;
      const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000 });
      return Number(run.stdout);
    };
    const normal = churn(false);
    const lean = churn(true);
    expect(normal).toBeGreaterThan(0);
    expect(lean).toBeLessThan(normal);
  });
});
