import { describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX, describeSandbox } from '../../src/core/config/sandbox-config.js';
import { isSwitchboardError } from '../../src/core/errors.js';
import { normalizeServerEntry, type StdioTransportConfig } from '../../src/core/server-config.js';

const sandboxOf = (sandbox: unknown) =>
  (normalizeServerEntry({ name: 's', command: 'node', sandbox }).transport as StdioTransportConfig).sandbox;

describe('the sandbox field', () => {
  it('normalizes "default", "off" and a profile over the default one', () => {
    expect(sandboxOf('default')).toEqual(DEFAULT_SANDBOX);
    expect(sandboxOf('off')).toEqual({ kind: 'off' });
    expect(sandboxOf({ read: ['/srv'], limits: { cpuSeconds: 60 } })).toEqual({
      kind: 'profile',
      name: 'custom',
      profile: {
        backend: { kind: 'bubblewrap' },
        read: ['/srv'],
        write: [],
        network: { kind: 'none' },
        env: [],
        launcherCache: 'shared',
        limits: { memoryMb: 2048, processes: 256, cpuSeconds: 60 },
      },
    });
    expect(
      (normalizeServerEntry({ name: 's', command: 'node' }).transport as StdioTransportConfig).sandbox,
    ).toBeUndefined();
  });

  it('refuses a relative path, an unknown network and an unknown field, naming the field', () => {
    for (const [sandbox, field] of [
      [{ read: ['data'] }, 'sandbox'],
      [{ network: 'lan' }, 'sandbox'],
      [{ mount: ['/x'] }, 'sandbox'],
      ['on', 'sandbox'],
    ] as const) {
      let caught: unknown;
      try {
        sandboxOf(sandbox);
      } catch (error) {
        caught = error;
      }
      expect(isSwitchboardError(caught, 'CONFIG_INVALID'), JSON.stringify(sandbox)).toBe(true);
      expect(String((caught as { details: { field: string } }).details.field)).toContain(field);
    }
    // Variables are expanded at start, so a path holding one is taken as written.
    expect(sandboxOf({ write: ['${HOME}/out'] })).toMatchObject({ profile: { write: ['${HOME}/out'] } });
  });

  it('is described in a line for people', () => {
    expect(describeSandbox(undefined)).toBe('off');
    expect(describeSandbox(DEFAULT_SANDBOX)).toBe(
      'default profile (bubblewrap): no network; writes its state directory; 2048 MiB; 256 processes',
    );
    expect(describeSandbox(sandboxOf({ read: ['/srv'], network: 'host' }))).toMatch(
      /^custom profile \(bubblewrap\): the host's network; reads \/srv;/,
    );
  });
});
