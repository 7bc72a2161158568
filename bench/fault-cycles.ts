import { Connection } from '../src/client/connection.js';
import { MemoryEraVerdictStore } from '../src/client/era.js';
import { normalizeServerEntry } from '../src/core/server-config.js';
import { misbehavingBin } from '../test/fixtures/paths.js';
import { processesWithEnv } from '../test/helpers/processes.js';

/**
 * Connect/close cycles of stdio servers that start processes of their own (misbehaving.ts
 * modes): how many of a cycle's processes are still alive once `close()` returned. Each
 * cycle's server carries `<marker>=<value>` (the run's) and `SB_FAULTS_CYCLE=<value>-<n>` (its
 * own) in its environment, which everything it starts inherits, so what is left is counted
 * by cycle even with cycles running side by side.
 */

/** Modes, and the stderr lines that say each started what it starts. */
export const CYCLE_MODES = {
  grandchild: { line: 'grandchild-pid ', count: 1 },
  'pipe-holder': { line: 'holder-pid ', count: 1 },
  'pipe-holder-setsid': { line: 'holder-pid ', count: 1 },
  daemons: { line: 'daemon-pid ', count: 4 },
} as const;
export type CycleMode = keyof typeof CYCLE_MODES;

export interface CycleOptions {
  /** Cycles in all, the modes by turns. */
  readonly cycles: number;
  /** Cycles running at once. */
  readonly parallel: number;
  readonly marker: { readonly name: string; readonly value: string };
}

export interface CycleFigures {
  cycles: number;
  /** Processes of the cycle alive before close(), per cycle (the tree was real). */
  treeSizes: number[];
  /** Processes of the cycle alive right after close() returned, summed. */
  left: number;
  /** Cycles whose server did not report what it starts within 10 s (closed anyway). */
  notReady: number;
  closeMs: number[];
}

const READY_MS = 10_000;

async function cycle(
  mode: CycleMode,
  id: string,
  options: CycleOptions,
  figures: CycleFigures,
): Promise<void> {
  const expected = CYCLE_MODES[mode];
  let seen = 0;
  let ready: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    ready = resolve;
  });
  const conn = new Connection({
    config: normalizeServerEntry({
      name: `cycle-${mode}`,
      command: process.execPath,
      args: [misbehavingBin, '--mode', mode],
      protocol: 'legacy',
      env: { [options.marker.name]: options.marker.value, SB_FAULTS_CYCLE: id },
    }),
    eraStore: new MemoryEraVerdictStore(),
    onLog: (entry) => {
      if (entry.text.startsWith(expected.line) && ++seen >= expected.count) ready();
    },
  });
  try {
    await conn.connect();
    let timer: NodeJS.Timeout | undefined;
    const inTime = await Promise.race([
      started.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), READY_MS))),
    ]);
    clearTimeout(timer);
    if (!inTime) figures.notReady++;
    figures.treeSizes.push(processesWithEnv('SB_FAULTS_CYCLE', id).length);
  } finally {
    const start = performance.now();
    await conn.close();
    figures.closeMs.push(performance.now() - start);
    figures.left += processesWithEnv('SB_FAULTS_CYCLE', id).length;
    figures.cycles++;
  }
}

/** Runs the cycles, `parallel` at a time; returns the figures by mode. */
export async function runCycles(options: CycleOptions): Promise<Record<CycleMode, CycleFigures>> {
  const modes = Object.keys(CYCLE_MODES) as CycleMode[];
  const figures = Object.fromEntries(
    modes.map((mode) => [mode, { cycles: 0, treeSizes: [], left: 0, notReady: 0, closeMs: [] }]),
  ) as unknown as Record<CycleMode, CycleFigures>;
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, options.parallel) }, async () => {
      while (next < options.cycles) {
        const n = next++;
        const mode = modes[n % modes.length]!;
        await cycle(mode, `${options.marker.value}-${n}`, options, figures[mode]);
      }
    }),
  );
  return figures;
}
