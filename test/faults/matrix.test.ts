import { describe, expect, it } from 'vitest';
import { FAULT_CLASSES, type FaultClass, type FaultTransport } from './fault-table.js';
import { HTTP_FAULTS } from './http-faults.js';
import { SSE_FAULTS } from './sse-faults.js';
import { STDIO_FAULTS } from './stdio-faults.js';

/**
 * The table itself: broad enough (at least 40 faults, the classes each transport must cover),
 * and every row well formed — a unique id, a promise in words, its transport's table.
 */
const ALL = [...STDIO_FAULTS, ...HTTP_FAULTS, ...SSE_FAULTS];

/** Classes that mean nothing on a transport (no process, no stdout) are not asked of it. */
const NOT_ON: Partial<Record<FaultTransport, readonly FaultClass[]>> = {
  http: ['held-pipe', 'daemon', 'ignored-sigterm', 'stdout-closed', 'framing'],
  stdio: ['http-status', 'connection-reset', 'sse-stream', 'session'],
  sse: ['held-pipe', 'daemon', 'ignored-sigterm', 'stdout-closed'],
};

describe('the fault matrix', () => {
  it('has at least 40 faults, each with a unique id and a stated promise', () => {
    expect(ALL.length).toBeGreaterThanOrEqual(40);
    expect(new Set(ALL.map((f) => f.id)).size).toBe(ALL.length);
    for (const fault of ALL) {
      expect(fault.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(fault.promise.length, fault.id).toBeGreaterThan(20);
    }
  });

  it.each([
    ['stdio', STDIO_FAULTS],
    ['http', HTTP_FAULTS],
    ['sse', SSE_FAULTS],
  ] as const)('covers every class that applies to %s', (transport, table) => {
    expect(table.every((f) => f.transport === transport)).toBe(true);
    const covered = new Set(table.filter((f) => f.knownDefect === undefined).map((f) => f.class));
    const wanted = FAULT_CLASSES.filter((c) => !NOT_ON[transport]?.includes(c));
    expect(wanted.filter((c) => !covered.has(c))).toEqual([]);
  });
});
