import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSwitchboard, type Switchboard } from '../../src/app/switchboard.js';
import { isSwitchboardError } from '../../src/core/errors.js';
import { kitchenSinkBin } from '../fixtures/paths.js';

let root: string;
let sb: Switchboard | undefined;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'sb-app-'));
  await mkdir(join(root, 'project'));
  await mkdir(join(root, 'home', '.switchboard'), { recursive: true });
});
afterEach(async () => {
  await sb?.close();
  sb = undefined;
  await rm(root, { recursive: true, force: true });
});

describe('createSwitchboard', () => {
  it('starts the servers of the project and user config files, project winning', async () => {
    const kitchen = { command: process.execPath, args: [kitchenSinkBin], protocol: 'legacy' };
    await writeFile(
      join(root, 'home', '.switchboard', 'config.json'),
      JSON.stringify({
        servers: {
          shared: { ...kitchen, enabled: false },
          mine: { ...kitchen, tools: { exclude: ['echo'] } },
        },
      }),
    );
    await writeFile(
      join(root, 'project', 'switchboard.json'),
      `{
        // the project's own view of "shared"
        "servers": { "shared": ${JSON.stringify(kitchen)}, },
      }`,
    );
    sb = await createSwitchboard({ projectDir: join(root, 'project'), homeDir: join(root, 'home') });
    expect(sb.config.servers.map((s) => s.name).sort()).toEqual(['mine', 'shared']);
    const deadline = Date.now() + 20_000;
    while (!sb.host.servers().every((s) => s.state === 'connected') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(sb.host.servers().map((s) => [s.name, s.state, s.source])).toEqual([
      ['mine', 'connected', join(root, 'home', '.switchboard', 'config.json')],
      ['shared', 'connected', join(root, 'project', 'switchboard.json')],
    ]);
    // The excluded tool is not offered, and the status says why. (Catalog rebuilds follow the
    // connects; wait for the one that has both servers.)
    while (
      (!sb.host.servers()[0]!.rejectedTools.length || !sb.host.catalog().lookup('mcp__shared__echo')) &&
      Date.now() < deadline
    )
      await new Promise((r) => setTimeout(r, 20));
    expect(sb.host.servers()[0]!.rejectedTools).toEqual([
      { tool: 'echo', reason: 'filtered', detail: "removed by the entry's tools.include / tools.exclude" },
    ]);
    expect(sb.host.catalog().lookup('mcp__mine__echo')).toBeUndefined();
    expect(sb.host.catalog().lookup('mcp__shared__echo')).toBeDefined();
  });

  it('starts despite a broken entry, holding it failed with the file, entry and field', async () => {
    const kitchen = { command: process.execPath, args: [kitchenSinkBin], protocol: 'legacy' };
    await writeFile(
      join(root, 'project', 'switchboard.json'),
      JSON.stringify({ servers: { bad: { commmand: 'x' }, good: kitchen } }),
    );
    sb = await createSwitchboard({ projectDir: join(root, 'project'), homeDir: join(root, 'home') });
    const deadline = Date.now() + 20_000;
    while (sb.host.servers().find((s) => s.name === 'good')?.state !== 'connected' && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const bad = sb.host.servers().find((s) => s.name === 'bad')!;
    expect(bad.state).toBe('failed');
    expect(bad.error?.code).toBe('CONFIG_INVALID');
    expect(bad.error?.message).toContain('switchboard.json');
    expect(bad.error?.message).toContain('"bad"');
    expect(bad.error?.message).toContain('Did you mean "command"?');
    expect(sb.host.servers().find((s) => s.name === 'good')?.state).toBe('connected');
  });

  it('refuses a config file that does not parse, naming the file', async () => {
    await writeFile(join(root, 'project', 'switchboard.json'), '{ "servers": { "a": ');
    const error = await createSwitchboard({
      projectDir: join(root, 'project'),
      homeDir: join(root, 'home'),
    }).catch((e) => e);
    expect(isSwitchboardError(error, 'CONFIG_INVALID', 'CONFIG_READ_FAILED')).toBe(true);
    expect(error.message).toContain('switchboard.json');
  });
});
