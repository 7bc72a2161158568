import { spawn } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appJson, appLabel } from '../../src/cli/output/app-label.js';
import { appsServerBin } from '../fixtures/paths.js';

/**
 * `tools` and `describe` on a server with MCP Apps: the CLI as a real child process (bundled
 * once) against the apps fixture. A tool with a view is marked with it, an app-only or
 * model-only tool says so, and `--json` carries an `app` field.
 */
const repo = join(dirname(fileURLToPath(import.meta.url)), '../..');
let dir: string;
let cli: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-cli-apps-'));
  cli = join(dir, 'cli.mjs');
  await symlink(join(repo, 'node_modules'), join(dir, 'node_modules'), 'dir');
  await build({
    entryPoints: [join(repo, 'src/cli/main.ts')],
    outfile: cli,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    bundle: true,
    packages: 'external',
    logLevel: 'warning',
  });
  await writeFile(
    join(dir, 'switchboard.json'),
    JSON.stringify({ servers: { apps: { command: process.execPath, args: [appsServerBin] } } }),
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function sb(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  const env: Record<string, string | undefined> = { ...process.env, HOME: dir, NO_COLOR: '1' };
  delete env.FORCE_COLOR;
  const child = spawn(
    process.execPath,
    [cli, '--config', dir, '--data-dir', join(dir, 'data'), '--local', ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    err += c.toString();
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? -1, out, err }));
  });
}

describe('the app label', () => {
  it('names the view and who may call it when that is not everyone', () => {
    expect(appLabel({ _meta: { ui: { resourceUri: 'ui://a/v' } } })).toBe('app ui://a/v');
    expect(appLabel({ _meta: { ui: { resourceUri: 'ui://a/v', visibility: ['app'] } } })).toBe(
      'app ui://a/v, app only',
    );
    expect(appLabel({ _meta: { ui: { visibility: ['model'] } } })).toBe('app, model only');
    expect(appLabel({ _meta: { other: 1 } })).toBeUndefined();
    expect(appJson({})).toBeNull();
  });
});

describe('tools and describe', () => {
  it('mark the tools that have an app and show its resource', async () => {
    const tools = await sb(['tools', 'apps']);
    expect(tools.code, tools.err).toBe(0);
    const line = (name: string) => tools.out.split('\n').find((l) => l.trim().startsWith(`${name}(`));
    expect(line('show_counter')).toMatch(/\[app ui:\/\/counter\/view\.html\]$/);
    expect(line('increment')).toMatch(/\[app ui:\/\/counter\/view\.html, app only\]$/);
    expect(line('secret_note')).toMatch(/\[app, model only\]$/);
    expect(line('plain')).not.toMatch(/\[app/);

    const described = await sb(['describe', 'apps.show_counter']);
    expect(described.code, described.err).toBe(0);
    expect(described.out).toMatch(/^App {2}app ui:\/\/counter\/view\.html$/m);

    const json = JSON.parse((await sb(['--json', 'describe', 'apps.increment'])).out) as { app: unknown };
    expect(json.app).toEqual({ resourceUri: 'ui://counter/view.html', visibility: ['app'] });
  });
});
