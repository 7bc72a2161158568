import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { tuneGatewayHeap } from '../../src/cli/gateway-heap.js';

const GROWING = '--heap-growing-percent=10';
const PRETENURING = '--no-allocation-site-pretenuring';

describe('tuneGatewayHeap', () => {
  it('applies every setting the person did not give', () => {
    expect(tuneGatewayHeap({ execArgv: ['--inspect'], nodeOptions: '--max-old-space-size=512' })).toEqual([
      GROWING,
      PRETENURING,
    ]);
  });

  it('leaves each setting to the person who gave it, in any spelling, on the command line or in NODE_OPTIONS', () => {
    const given: [readonly string[], string | undefined, string[]][] = [
      [['--heap-growing-percent=30'], undefined, [PRETENURING]],
      [['--heap_growing_percent=30'], undefined, [PRETENURING]],
      [[], '--max-old-space-size=512 --heap-growing-percent=5', [PRETENURING]],
      [['--allocation-site-pretenuring'], undefined, [GROWING]],
      [['--no-allocation-site-pretenuring'], undefined, [GROWING]],
      [['--noallocation_site_pretenuring'], undefined, [GROWING]],
      [[], '--allocation_site_pretenuring --heap-growing-percent=20', []],
    ];
    for (const [execArgv, nodeOptions, applied] of given)
      expect(tuneGatewayHeap({ execArgv, nodeOptions }), `${execArgv} | ${nodeOptions}`).toEqual(applied);
  });

  it('makes V8 grow the heap less under churn (heap-growing-percent, in a process of its own)', () => {
    const churn = (lean: boolean) => {
      const script = `
        ${lean ? `require('node:v8').setFlagsFromString('${GROWING}');` : ''}
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
