import { describe, expect, it } from 'vitest';
import { parseGateway, resolveGateway } from '../../src/core/config/gateway-config.js';
import { isSwitchboardError } from '../../src/core/errors.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';

/**
 * The task settings: a server entry's `taskAfter` (calls running longer become tasks through
 * the gateway) and the gateway's `tasks` section — normalized as documented, and refused with
 * a message naming the field and the fix.
 */
const entry = (taskAfter: unknown) => ({ name: 'render', command: 'node', taskAfter });

function refusal(run: () => unknown): { message: string; field: unknown } {
  try {
    run();
  } catch (error) {
    if (isSwitchboardError(error, 'CONFIG_INVALID'))
      return { message: error.message, field: error.details.field };
    throw error;
  }
  throw new Error('not refused');
}

describe('taskAfter of a server entry', () => {
  it('takes seconds for every tool', () => {
    expect(normalizeServerEntry(entry(10)).taskAfter).toEqual([{ tools: '*', afterMs: 10_000 }]);
    expect(normalizeServerEntry(entry(0)).taskAfter).toEqual([{ tools: '*', afterMs: 0 }]);
    expect(normalizeServerEntry(entry(1.5)).taskAfter).toEqual([{ tools: '*', afterMs: 1500 }]);
    expect(normalizeServerEntry({ name: 'x', command: 'node' }).taskAfter).toBeUndefined();
  });

  it('takes seconds per tool glob, exact names before globs, globs in the order written', () => {
    expect(normalizeServerEntry(entry({ '*': 30, 'render_*': 5, render_video: 2 })).taskAfter).toEqual([
      { tools: 'render_video', afterMs: 2000 },
      { tools: '*', afterMs: 30_000 },
      { tools: 'render_*', afterMs: 5000 },
    ]);
  });

  it('refuses what is not seconds, naming the field and the forms it takes', () => {
    for (const bad of ['10', -1, 86_401, true, { render: 'soon' }, { render: -2 }, [10]]) {
      const { message, field } = refusal(() => normalizeServerEntry(entry(bad)));
      expect(message, JSON.stringify(bad)).toContain('taskAfter');
      expect(String(field)).toMatch(/^taskAfter/);
      expect(message).toMatch(/seconds|number/);
    }
  });
});

describe('the gateway tasks section', () => {
  it('has defaults: an hour kept, a day at most, polls every second, 1000 running', () => {
    expect(resolveGateway(undefined).tasks).toEqual({
      ttlMs: 3_600_000,
      maxTtlMs: 86_400_000,
      pollIntervalMs: 1000,
      maxRunning: 1000,
    });
    expect(
      resolveGateway(parseGateway({ tasks: { pollIntervalMs: 250 } }, 'f.json')).tasks.pollIntervalMs,
    ).toBe(250);
  });

  it('refuses a default ttl past the longest allowed, and values out of range, saying which', () => {
    const past = refusal(() => parseGateway({ tasks: { ttlMs: 7_200_000, maxTtlMs: 3_600_000 } }, 'f.json'));
    expect(past.field).toBe('gateway.tasks.ttlMs');
    expect(past.message).toContain('maxTtlMs');
    const tooShort = refusal(() => parseGateway({ tasks: { maxTtlMs: 10 } }, 'f.json'));
    expect(tooShort.field).toBe('gateway.tasks.maxTtlMs');
    const unknown = refusal(() => parseGateway({ tasks: { ttl: 5 } }, 'f.json'));
    expect(unknown.message).toContain('ttl');
    expect(unknown.message).toContain('ttlMs');
  });

  it('keeps the default ttl within the longest when two files each set one', () => {
    const settings = resolveGateway({
      ...parseGateway({ tasks: { ttlMs: 7_200_000 } }, 'a.json'),
      tasks: { ttlMs: 7_200_000, maxTtlMs: 3_600_000 },
    });
    expect(settings.tasks.ttlMs).toBe(3_600_000);
  });
});
