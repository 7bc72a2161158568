import { describe, expect, it } from 'vitest';
import { mergeConfigs, normalizeConfigFile, parseConfigText } from '../../src/core/config/config-file.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { thrown } from '../helpers/rejection.js';

const SAMPLE = `// Switchboard servers for this project
{
  "$schema": "./node_modules/mcp-switchboard/schema/switchboard.schema.json",
  "servers": {
    /* local */
    "fs": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "\${HOME}/notes"], },
    "github": {
      "url": "https://api.githubcopilot.com/mcp/",
      "auth": { "type": "bearer", "token": "\${GITHUB_TOKEN}" },
      "trust": "trusted",
      "deferral": "eager",
      "tools": { "exclude": ["delete_*"] },
      "timeouts": { "startup": 30 },
      "title": "GitHub",
    },
  },
}`;

describe('parseConfigText', () => {
  it('accepts comments and trailing commas', () => {
    const raw = parseConfigText(SAMPLE, 'switchboard.json') as { servers: Record<string, unknown> };
    expect(Object.keys(raw.servers)).toEqual(['fs', 'github']);
  });

  it('treats an empty file as an empty config', () => {
    expect(normalizeConfigFile(parseConfigText('  \n', 'f.json'), 'f.json').servers).toEqual([]);
  });

  it('names file, line and column of a syntax error', () => {
    const text = '{\n  "servers": {\n    "a": { "command": "x" }\n    "b": { "command": "y" }\n  }\n}';
    const e = thrown(() => parseConfigText(text, '/p/switchboard.json'));
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.message).toBe(
      '/p/switchboard.json:4:5: a comma is missing. Fix the JSON there (comments and trailing commas are allowed).',
    );
    expect(thrown(() => parseConfigText('{ "servers": { "a": "x"', 'f.json')).message).toMatch(
      /^f\.json:1:24: a closing "}" is missing/,
    );
  });
});

describe('normalizeConfigFile', () => {
  it('normalizes entries keyed by name, with defaults for the new fields', () => {
    const { servers } = normalizeConfigFile(parseConfigText(SAMPLE, 'switchboard.json'), 'switchboard.json');
    const [fs, gh] = servers;
    expect(fs).toMatchObject({
      name: 'fs',
      enabled: true,
      trust: 'untrusted',
      deferral: 'deferred',
      tools: { exclude: [] },
      startupTimeoutMs: 120_000,
    });
    expect(fs?.transport.kind).toBe('stdio');
    expect(gh).toMatchObject({
      name: 'github',
      auth: { type: 'bearer', token: '${GITHUB_TOKEN}' },
      trust: 'trusted',
      deferral: 'eager',
      tools: { exclude: ['delete_*'] },
      startupTimeoutMs: 30_000,
      title: 'GitHub',
    });
  });

  it('suggests the known field for a misspelled one', () => {
    const e = thrown(() => normalizeConfigFile({ servers: { fs: { commmand: 'npx' } } }, 'switchboard.json'));
    expect(e.message).toBe(
      'switchboard.json: server "fs", field "commmand": unknown field "commmand". Did you mean "command"? Rename it.',
    );
    expect(e.details).toMatchObject({ file: 'switchboard.json', server: 'fs', field: 'commmand' });
    const nested = thrown(() =>
      normalizeConfigFile({ servers: { fs: { command: 'x', timeouts: { conect: 5 } } } }, 'a.json'),
    );
    expect(nested.message).toMatch(/server "fs", field "timeouts.conect": .*Did you mean "connect"\?/);
    const far = thrown(() =>
      normalizeConfigFile({ servers: { fs: { command: 'x', colour: 'red' } } }, 'a.json'),
    );
    expect(far.message).toMatch(
      /unknown field "colour". Remove it; the known fields here are "name", "transport"/,
    );
  });

  it('explains wrong values with the expected form', () => {
    const e = thrown(() =>
      normalizeConfigFile({ servers: { fs: { command: 'x', args: '-y pkg' } } }, 'a.json'),
    );
    expect(e.message).toBe(
      'a.json: server "fs", field "args": expected array, received string. Write a list of strings, e.g. ["-y", "@modelcontextprotocol/server-filesystem"].',
    );
    expect(
      thrown(() => normalizeConfigFile({ servers: { a: { command: 'x', deferral: 'lazy' } } }, 'a.json'))
        .message,
    ).toMatch(/field "deferral": must be one of "eager", "deferred", "hidden"/);
    expect(
      thrown(() =>
        normalizeConfigFile({ servers: { a: { url: 'https://h/', auth: { type: 'basic' } } } }, 'a.json'),
      ).message,
    ).toMatch(/field "auth.type": must be "bearer" or "api_key" or "oauth"/);
  });

  it('rejects file-level mistakes with a way out', () => {
    expect(thrown(() => normalizeConfigFile({ mcpServers: {} }, 'a.json')).message).toBe(
      'a.json: field "mcpServers": Switchboard lists servers under "servers". Rename "mcpServers" to "servers".',
    );
    expect(thrown(() => normalizeConfigFile({ server: {} }, 'a.json')).message).toMatch(
      /Did you mean "servers"/,
    );
    expect(thrown(() => normalizeConfigFile([], 'a.json')).message).toMatch(/must hold an object/);
    expect(
      thrown(() => normalizeConfigFile({ servers: { 'my server': { command: 'x' } } }, 'a.json')).message,
    ).toMatch(/server "my server", field "name": .*Rename the key/);
    expect(
      thrown(() => normalizeConfigFile({ servers: { a: { name: 'a', command: 'x' } } }, 'a.json')).message,
    ).toMatch(/the name is the key/);
  });
});

describe('mergeConfigs', () => {
  it('lets a project entry replace the user entry of the same name as a whole', () => {
    const user = {
      servers: [
        normalizeServerEntry({ name: 'a', command: 'x' }),
        normalizeServerEntry({ name: 'b', command: 'y' }),
      ],
    };
    const project = {
      servers: [
        normalizeServerEntry({ name: 'b', url: 'https://h/mcp' }),
        normalizeServerEntry({ name: 'c', command: 'z' }),
      ],
    };
    const merged = mergeConfigs(user, project);
    expect(merged.servers.map((s) => [s.name, s.transport.kind])).toEqual([
      ['a', 'stdio'],
      ['b', 'http'],
      ['c', 'stdio'],
    ]);
  });
});

describe('entries that do not normalize', () => {
  const raw = { servers: { good: { command: 'x' }, typo: { comand: 'x' }, remote: { url: 'ftp://h' } } };

  it('throw by default, and are collected with their error and entry on request', () => {
    expect(thrown(() => normalizeConfigFile(raw, 'a.json')).details).toMatchObject({
      server: 'typo',
      field: 'comand',
    });
    const loaded = normalizeConfigFile(raw, 'a.json', { invalidEntries: 'collect' });
    expect(loaded.servers.map((s) => s.name)).toEqual(['good']);
    expect(loaded.invalid?.map((e) => [e.name, e.file, e.error.details.field])).toEqual([
      ['typo', 'a.json', 'comand'],
      ['remote', 'a.json', 'url'],
    ]);
    expect(loaded.invalid?.[1]?.entry).toEqual({ url: 'ftp://h' });
  });

  it('never hide a broken file section: governance and gateway still throw', () => {
    const broken = { servers: {}, gateway: { auth: { mode: 'nope' } } };
    expect(() => normalizeConfigFile(broken, 'a.json', { invalidEntries: 'collect' })).toThrow(/gateway/);
  });

  it('merge like entries: an invalid project entry replaces the user one, a valid one an invalid one', () => {
    const user = normalizeConfigFile({ servers: { a: { command: 'x' }, b: { comand: 'x' } } }, 'user.json', {
      invalidEntries: 'collect',
    });
    const project = normalizeConfigFile(
      { servers: { a: { comand: 'y' }, b: { command: 'y' } } },
      'project.json',
      { invalidEntries: 'collect' },
    );
    const merged = mergeConfigs(user, project);
    expect(merged.servers.map((s) => [s.name, s.transport])).toEqual([
      ['b', { kind: 'stdio', command: 'y', args: [], env: {} }],
    ]);
    expect(merged.invalid?.map((e) => [e.name, e.file])).toEqual([['a', 'project.json']]);
  });
});
