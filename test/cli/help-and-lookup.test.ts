import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { killAll, placesUnder, put, runCli, startCliWith } from './manage-cli.js';

/**
 * The CLI's help, version, "did you mean" and the errors of a mistyped name, path or busy
 * port, as real child processes: help and version exit 0, every mistake exits 2 (3 for a port)
 * with the nearest names and what is configured.
 */
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'sb-cli-help-'));
});
afterEach(() => killAll());
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const newPlace = placesUnder(() => root);
/** Several CLI processes each start tsx: on a busy 2-core machine that takes a while. */
const LOADED_MACHINE_MS = 120_000;
const kitchen = { command: process.execPath, args: [kitchenSinkBin, '--transport', 'stdio'] };

describe('help and version', () => {
  it(
    'answers --help, -h, help, help <verb>, <verb> --help and --version with exit 0',
    async () => {
      const place = await newPlace();
      const runs = await Promise.all(
        [
          ['--help'],
          ['-h'],
          ['help'],
          ['help', 'call'],
          ['call', '--help'],
          ['tools', '-h'],
          ['--version'],
          ['-V'],
        ].map((args) => startCliWith(place, args).done),
      );
      for (const run of runs) expect(run.code, run.err.join('\n')).toBe(0);
      const [help, short, word, helpCall, callHelp, toolsHelp, version, v] = runs.map((r) =>
        r!.out.join('\n'),
      );
      // Every verb with what it does, on one line each.
      expect(help).toMatch(/^ {2}call +calls a tool with key=value arguments/m);
      expect(help).toMatch(/^ {2}serve +serves every configured server/m);
      expect(help).toContain('--version');
      expect(short).toBe(help);
      expect(word).toBe(help);
      // A verb's own help: its usage, then examples — not the global usage.
      expect(helpCall).toContain('usage: switchboard call <server.tool');
      expect(helpCall).toMatch(/Examples:\n {2}switchboard call weather\.get_forecast city=Lisbon/);
      expect(helpCall).not.toContain('Look at servers and use them');
      expect(callHelp).toBe(helpCall);
      expect(toolsHelp).toContain('usage: switchboard tools [server]');
      expect(version).toMatch(/^switchboard \d+\.\d+\.\d+/);
      expect(v).toBe(version);
    },
    LOADED_MACHINE_MS,
  );

  it(
    'suggests the nearest verb and option, exit 2',
    async () => {
      const place = await newPlace();
      const [verb, global, own, topic] = await Promise.all([
        runCli(place, 'lsit'),
        startCliWith(place, ['--jsno', 'list']).done,
        runCli(place, 'logs', 'x', '--folow'),
        runCli(place, 'help', 'promt'),
      ]);
      for (const run of [verb, global, own, topic]) expect(run.code).toBe(2);
      expect(verb.err[0]).toBe(
        'switchboard: Unknown verb "lsit". Did you mean "list"? "switchboard --help" lists them.',
      );
      expect(global.err[0]).toContain('Unknown option --jsno. Did you mean "--json"?');
      expect(own.err[0]).toContain(`Unknown option '--folow'. Did you mean "--follow"?`);
      expect(own.err[1]).toContain('switchboard help logs');
      expect(topic.err[0]).toContain('Did you mean "prompt" or "prompts"?');
    },
    LOADED_MACHINE_MS,
  );
});

describe('names that are not configured', () => {
  it(
    'lists every configured server (files and store) with the nearest, before starting any',
    async () => {
      const place = await newPlace();
      await put(join(place.project, 'switchboard.json'), {
        servers: { kitchen: kitchen, weather: { ...kitchen }, accounts: { ...kitchen, enabled: false } },
      });
      const [status, call, disable, tools] = await Promise.all([
        runCli(place, 'status', 'kitchn'),
        runCli(place, 'call', 'wether.echo', 'text=hi'),
        runCli(place, 'disable', 'acounts'),
        runCli(place, 'tools', 'nothing-like-it'),
      ]);
      for (const run of [status, call, disable, tools]) expect(run.code, run.err.join('\n')).toBe(2);
      expect(status.err[0]).toContain('No server named "kitchn"');
      expect(status.err[0]).toContain('Did you mean "kitchen"?');
      expect(status.err[0]).toContain('Configured: kitchen, weather, accounts.');
      expect(call.err[0]).toContain('Did you mean "weather');
      expect(disable.err[0]).toContain('Did you mean "accounts"?');
      expect(tools.err[0]).toContain('Configured: kitchen, weather, accounts.');
      expect(tools.err[0]).not.toContain('Did you mean');
    },
    LOADED_MACHINE_MS,
  );

  it(
    'suggests the nearest tool of a server',
    async () => {
      const place = await newPlace();
      await put(join(place.project, 'switchboard.json'), { servers: { kitchen } });
      const run = await runCli(place, 'call', 'kitchen.ecoh', 'text=hi');
      expect(run.code, run.err.join('\n')).toBe(2);
      expect(run.err[0]).toContain('kitchen has no tool "ecoh". Did you mean "echo"?');
    },
    LOADED_MACHINE_MS,
  );
});

describe('--config', () => {
  it(
    'takes a directory or a file, and a missing path is an error naming it',
    async () => {
      const place = await newPlace();
      const file = join(place.project, 'other-name.json');
      await put(file, { servers: { kitchen: { ...kitchen, enabled: false } } });
      const missing = join(place.project, 'no-such-dir');
      const [byFile, byMissing] = await Promise.all([
        startCliWith(place, ['--config', file, '--data-dir', place.data, '--json', 'list']).done,
        startCliWith(place, ['--config', missing, '--data-dir', place.data, 'list']).done,
      ]);
      expect(byFile.code, byFile.err.join('\n')).toBe(0);
      const listed = JSON.parse(byFile.out[0]!) as {
        servers: { name: string; state: string; source: string }[];
      };
      expect(listed.servers).toMatchObject([{ name: 'kitchen', state: 'disabled', source: file }]);
      expect(byMissing.code).toBe(2);
      expect(byMissing.err[0]).toContain(`--config ${missing}: ${missing} does not exist`);
    },
    LOADED_MACHINE_MS,
  );
});

describe('serve on a port in use', () => {
  let busy: Server;
  afterEach(() => new Promise<void>((done) => (busy ? busy.close(() => done()) : done())));

  it(
    'says the port is taken and what to do, exit 3, as start does',
    async () => {
      const place = await newPlace();
      busy = createServer();
      const port = await new Promise<number>((resolve) =>
        busy.listen(0, '127.0.0.1', () => resolve((busy.address() as { port: number }).port)),
      );
      const [human, json] = await Promise.all([
        runCli(place, 'serve', '--port', String(port)),
        runCli(place, '--json', 'serve', '--port', String(port)),
      ]);
      expect(human.code).toBe(3);
      expect(human.err.join('\n')).toContain(
        `switchboard serve: Port ${port} on 127.0.0.1 is already in use (another Switchboard?).`,
      );
      expect(human.err.join('\n')).toContain('"switchboard serve --port 0" takes any free one');
      expect(human.err.join('\n')).not.toContain('EADDRINUSE');
      expect(json.code).toBe(3);
      expect(JSON.parse(json.out[0]!)).toMatchObject({ error: { code: 'PORT_UNAVAILABLE' } });
    },
    LOADED_MACHINE_MS,
  );
});
