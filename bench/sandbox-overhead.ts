import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '../src/client/connection.js';
import { MemoryEraVerdictStore } from '../src/client/era.js';
import { findBwrap } from '../src/client/sandbox/bwrap-probe.js';
import { describeError } from '../src/core/errors.js';
import { normalizeServerEntry } from '../src/core/server-config.js';
import { kitchenSinkBin } from '../test/fixtures/paths.js';
import { fmt, median } from './stats.js';

/**
 * What a sandbox costs (part of `bench:host`): spawn-to-ready and call latency of the kitchen
 * sink under the default profile vs unsandboxed, interleaved round by round so both see the
 * same machine. Goal: ≤ 30 ms more to start, no measurable call overhead.
 */
export async function sandboxOverhead(rounds: number, calls = 200): Promise<void> {
  const unavailable = await findBwrap().then(
    () => undefined,
    (error: unknown) => describeError(error),
  );
  if (unavailable) {
    console.log(`sandbox overhead                          skipped: ${unavailable}`);
    return;
  }
  const sandboxDir = mkdtempSync(join(tmpdir(), 'sb-bench-sandbox-'));
  const ready: Record<'plain' | 'sandboxed', number[]> = { plain: [], sandboxed: [] };
  const call: Record<'plain' | 'sandboxed', number[]> = { plain: [], sandboxed: [] };
  try {
    for (let r = 0; r < rounds; r++) {
      for (const kind of ['plain', 'sandboxed'] as const) {
        const conn = new Connection({
          config: normalizeServerEntry({
            name: `bench-${kind}`,
            command: process.execPath,
            args: [kitchenSinkBin],
            protocol: 'legacy',
            ...(kind === 'sandboxed' && { sandbox: 'default' as const }),
          }),
          eraStore: new MemoryEraVerdictStore(),
          sandboxDir,
        });
        const t0 = performance.now();
        await conn.connect();
        ready[kind].push(performance.now() - t0);
        for (let i = 0; i < calls; i++) {
          const t = performance.now();
          await conn.callTool('echo', { text: 'x' });
          call[kind].push(performance.now() - t);
        }
        await conn.close();
      }
    }
  } finally {
    rmSync(sandboxDir, { recursive: true, force: true });
  }
  const startMore = median(ready.sandboxed) - median(ready.plain);
  console.log(
    `spawn-to-ready, sandboxed vs plain        ${fmt(median(ready.sandboxed), 1).padStart(7)} ms vs ${fmt(median(ready.plain), 1)} ms: +${fmt(startMore, 1)} ms (goal ≤ 30)`,
  );
  console.log(
    `call latency, sandboxed vs plain          ${fmt(median(call.sandboxed), 2).padStart(7)} ms vs ${fmt(median(call.plain), 2)} ms: ×${fmt(median(call.sandboxed) / median(call.plain))}`,
  );
}
