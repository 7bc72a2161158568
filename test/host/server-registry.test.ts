import { describe, expect, it } from 'vitest';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { mergeRegistrations } from '../../src/host/server-registry.js';
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

describe('mergeRegistrations', () => {
  it('applies a toggle to the file entry it names and ignores one whose entry left the file', () => {
    const merged = mergeRegistrations(
      [file('a'), file('b')],
      [row('a', 'toggle', false), row('gone', 'toggle', true)],
    );
    expect(merged.map((s) => [s.config.name, s.enabled, s.source])).toEqual([
      ['a', false, '/etc/switchboard.json'],
      ['b', true, '/etc/switchboard.json'],
    ]);
  });

  it('lets a registration replace the file entry of the same name, keeping its own source and flag', () => {
    const merged = mergeRegistrations(
      [file('a')],
      [row('a', 'api', false, { url: 'https://example.com/mcp' }), row('c', 'agent', true, { command: 'x' })],
    );
    expect(merged.map((s) => [s.config.name, s.config.transport.kind, s.enabled, s.source])).toEqual([
      ['a', 'http', false, 'api'],
      ['c', 'stdio', true, 'agent'],
    ]);
  });

  it('marks registrations (and only them) as registered, so their connects are guarded after a restart too', () => {
    const merged = mergeRegistrations(
      [file('a'), file('b')],
      [row('a', 'toggle', true), row('b', 'api', true, { url: 'https://example.com/mcp' })],
    );
    expect(merged.map((s) => [s.config.name, s.registered === true])).toEqual([
      ['a', false],
      ['b', true],
    ]);
  });
});
