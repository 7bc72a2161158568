import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../src/core/errors.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import {
  fileServers,
  type HeldServer,
  mergeRegistrations,
  type RegistryEntry,
  registrationOf,
  type TrackedServer,
} from '../../src/host/server-registry.js';
import type { StoredServer } from '../../src/storage/ports.js';

const file = (name: string, enabled = true) => ({
  config: normalizeServerEntry({ name, command: 'node', args: ['a.js'] }),
  enabled,
  source: '/etc/switchboard.json',
});
const row = (name: string, source: string, enabled: boolean, entry: unknown = {}): StoredServer => ({
  name,
  source,
  enabled,
  entry,
  createdAt: new Date(0),
  updatedAt: new Date(0),
});

/** The entries that run (not held as failed). */
const running = (entries: RegistryEntry[]): TrackedServer[] =>
  entries.filter((e): e is TrackedServer => 'config' in e);

describe('mergeRegistrations', () => {
  it('applies a toggle to the file entry it names and ignores one whose entry left the file', () => {
    const merged = mergeRegistrations(
      [file('a'), file('b')],
      [row('a', 'toggle', false), row('gone', 'toggle', true)],
    );
    expect(running(merged).map((s) => [s.config.name, s.enabled, s.source])).toEqual([
      ['a', false, '/etc/switchboard.json'],
      ['b', true, '/etc/switchboard.json'],
    ]);
  });

  it('lets a registration replace the file entry of the same name, keeping its own source and flag', () => {
    const merged = mergeRegistrations(
      [file('a')],
      [row('a', 'api', false, { url: 'https://example.com/mcp' }), row('c', 'agent', true, { command: 'x' })],
    );
    expect(running(merged).map((s) => [s.config.name, s.config.transport.kind, s.enabled, s.source])).toEqual(
      [
        ['a', 'http', false, 'api'],
        ['c', 'stdio', true, 'agent'],
      ],
    );
  });
});

describe('entries that cannot start', () => {
  const held = (entries: RegistryEntry[]) => entries.filter((e): e is HeldServer => !('config' in e));

  it('a registration that does not normalize is held with what to do, its transport guessed', () => {
    const entry = registrationOf(row('old', 'api', true, { url: 'https://h/mcp', retired: true }));
    expect('config' in entry).toBe(false);
    const h = entry as HeldServer;
    expect(h).toMatchObject({ name: 'old', source: 'api', enabled: true, transport: 'http' });
    expect(h.error.code).toBe('CONFIG_INVALID');
    expect(h.error.message).toMatch(
      /^the store \(registered through api\): server "old", field "retired": unknown field "retired".* remove it \(switchboard remove old\)\.$/,
    );
    expect(h.error.details).toMatchObject({ server: 'old', source: 'api', field: 'retired' });
    expect((registrationOf(row('d', 'agent', false, '{"comm')) as HeldServer).error.message).toContain(
      'not an object (it is damaged)',
    );
  });

  it('invalid file entries are held with their file as source; a toggle still applies', () => {
    const error = new SwitchboardError('CONFIG_INVALID', 'bad');
    const files = fileServers(
      [file('a').config],
      [{ name: 'b', file: '/p/switchboard.json', error, entry: { url: 'https://h/mcp' } }],
      { a: '/p/switchboard.json', b: '/p/switchboard.json' },
    );
    const merged = mergeRegistrations(files, [row('b', 'toggle', false)]);
    expect(held(merged)).toEqual([
      { name: 'b', error, enabled: false, source: '/p/switchboard.json', transport: 'http' },
    ]);
    expect(running(merged).map((s) => s.config.name)).toEqual(['a']);
  });

  it('marks registrations (and only them) as registered, so their connects are guarded after a restart too', () => {
    const merged = mergeRegistrations(
      [file('a'), file('b')],
      [row('a', 'toggle', true), row('b', 'api', true, { url: 'https://example.com/mcp' })],
    );
    expect(running(merged).map((s) => [s.config.name, s.registered === true])).toEqual([
      ['a', false],
      ['b', true],
    ]);
  });
});
