import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mergeConfigs, readConfigText } from '../../src/core/config/config-file.js';
import { isSwitchboardError } from '../../src/core/errors.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { Host } from '../../src/host/host.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { catalogHas } from '../helpers/wait.js';

/**
 * The master switch: `"enabled": false` at the top of a config file (HostOptions.enabled)
 * turns MCP off for the host without touching the entries: no server is started, each is
 * listed disabled with why, a call fails at once, and turning it on again connects them all.
 */

let dataDir: string;
let host: Host | undefined;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sb-master-'));
});
afterEach(async () => {
  await host?.close();
  host = undefined;
  await rm(dataDir, { recursive: true, force: true });
});

const kitchen = normalizeServerEntry({ name: 'kitchen', command: process.execPath, args: [kitchenSinkBin] });

describe('the master switch in a config file', () => {
  it('is read, checked, and the project file decides over the user file', () => {
    const off = readConfigText('{ "enabled": false, "servers": { "a": { "command": "x" } } }', 'p.json');
    expect(off.enabled).toBe(false);
    expect(off.servers.map((s) => s.name)).toEqual(['a']);
    expect(readConfigText('{ "servers": {} }', 'p.json').enabled).toBeUndefined();
    expect(() => readConfigText('{ "enabled": "no" }', 'p.json')).toThrow(
      /p\.json: field "enabled": must be true or false/,
    );
    const user = readConfigText('{ "enabled": false }', 'u.json');
    const project = readConfigText('{ "enabled": true }', 'p.json');
    expect(mergeConfigs(user, project).enabled).toBe(true);
    expect(mergeConfigs(user, readConfigText('{}', 'p.json')).enabled).toBe(false);
  });
});

describe('a host with MCP off', () => {
  it('starts no server, lists each disabled with why, fails calls at once, and connects once on', async () => {
    host = await Host.create({
      dataDir,
      servers: [kitchen],
      governance: { mode: 'full-auto' },
      enabled: false,
    });
    const [status] = host.servers();
    expect(status).toMatchObject({ name: 'kitchen', state: 'disabled' });
    expect(status!.error?.message).toContain('MCP is off for this host');
    // Enabling one server does not start it while the switch is off.
    await host.setEnabled('kitchen', true);
    expect(host.servers()[0]!.state).toBe('disabled');
    const call = await host.callTool('mcp__kitchen__echo', { text: 'x' }).catch((e: unknown) => e);
    expect(isSwitchboardError(call)).toBe(true);
    await host.close();

    // The same data dir and entries, the switch on: the server connects and answers.
    host = await Host.create({ dataDir, servers: [kitchen], governance: { mode: 'full-auto' } });
    await catalogHas(host, 'mcp__kitchen__echo');
    const result = await host.callTool('mcp__kitchen__echo', { text: 'back' });
    expect(result.text).toBe('back');
  });
});
