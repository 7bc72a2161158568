import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_FILE } from '../../src/cli/running-gateway.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { killAll, placesUnder, put, runCli, startCli } from './manage-cli.js';

/**
 * One-shot verbs beside a running gateway, as real processes: `serve` announces itself in its
 * data dir, `list`, `tools` and `call` are answered by it (its server is already connected,
 * so the kitchen sink is spawned once, by the gateway), --local and a stale announcement work
 * locally, and the announcement goes when the gateway stops.
 */
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'sb-cli-gw-'));
});
afterEach(() => killAll());
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const newPlace = placesUnder(() => root);
const LOADED_MACHINE_MS = 180_000;

describe('a gateway running on the data dir', () => {
  it(
    'answers list, tools and call; --local and a stale file start the servers here',
    async () => {
      const place = await newPlace();
      const spawns = join(place.project, 'spawns');
      // Each spawn of the server appends a line: who started it is countable.
      const counter = join(place.project, 'counted-kitchen.mjs');
      await put(
        counter,
        `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(spawns)}, 'x\\n');\nawait import(${JSON.stringify(pathToFileURL(kitchenSinkBin).href)});\n`,
      );
      const kitchen = {
        command: process.execPath,
        args: [counter, '--transport', 'stdio'],
        trust: 'trusted',
      };
      await put(place.file, { servers: { kitchen }, governance: { mode: 'full-auto' } });
      const serve = startCli(place, 'serve', '--port', '0');
      const line = await serve.waitForLine(
        (l) => l.startsWith('listening '),
        'the gateway listening',
        90_000,
      );
      const origin = new URL(line.slice('listening '.length)).origin;
      const announced = JSON.parse(await readFile(join(place.data, GATEWAY_FILE), 'utf8'));
      expect(announced).toMatchObject({ url: origin, pid: serve.child.pid, projectFile: place.file });
      // Wait until the gateway's server is up (its list says so), then count spawns from here.
      let list = await runCli(place, '--json', 'list');
      for (let i = 0; i < 20 && JSON.parse(list.out[0] ?? '{}').servers?.[0]?.state !== 'connected'; i++)
        list = await runCli(place, '--json', 'list');
      expect(JSON.parse(list.out[0]!).servers).toMatchObject([{ name: 'kitchen', state: 'connected' }]);
      const before = (await readFile(spawns, 'utf8')).length;

      const [human, tools, call, json] = await Promise.all([
        runCli(place, 'list'),
        runCli(place, 'tools', 'kitchen'),
        runCli(place, 'call', 'kitchen.echo', 'text=hello'),
        runCli(place, '--json', 'call', 'kitchen.echo', 'text=hi'),
      ]);
      for (const run of [human, tools, call, json]) expect(run.code, run.err.join('\n')).toBe(0);
      expect(human.out.join('\n')).toMatch(/kitchen\s+connected/);
      expect(human.err.join('\n')).toContain(`via the running gateway at ${origin}`);
      expect(tools.out.join('\n')).toContain('echo(');
      expect(call.out.join('\n')).toContain('hello');
      expect(json.err.join('\n')).not.toContain('via the running gateway');
      expect(JSON.parse(json.out[0]!)).toMatchObject({ server: 'kitchen', tool: 'echo', isError: false });
      // None of them started the server.
      expect((await readFile(spawns, 'utf8')).length).toBe(before);

      // A mistyped tool is found out locally, with the nearest names.
      const typo = await runCli(place, 'call', 'kitchen.ecoh', 'text=hi');
      expect(typo.code).toBe(2);
      expect(typo.err[0]).toContain('Did you mean "echo"?');

      // --local starts the server here.
      const local = await runCli(place, '--local', 'call', 'kitchen.echo', 'text=local');
      expect(local.code, local.err.join('\n')).toBe(0);
      expect(local.err.join('\n')).not.toContain('via the running gateway');
      expect((await readFile(spawns, 'utf8')).length).toBeGreaterThan(before);

      serve.child.kill('SIGINT');
      expect((await serve.done).code).toBe(0);
      expect(existsSync(join(place.data, GATEWAY_FILE))).toBe(false);
    },
    LOADED_MACHINE_MS,
  );

  it(
    'ignores an announcement whose process is gone or that serves another config',
    async () => {
      const place = await newPlace();
      await put(place.file, { servers: {} });
      await put(join(place.data, 'local-token'), 'x'.repeat(43));
      // A pid that is not running: no process has pid 2^22 + 1 on Linux (pid_max is at most 2^22).
      await writeFile(
        join(place.data, GATEWAY_FILE),
        JSON.stringify({ url: 'http://127.0.0.1:9', pid: 4_194_305, projectFile: place.file }),
      );
      const stale = await runCli(place, 'list');
      expect(stale.code, stale.err.join('\n')).toBe(0);
      expect(stale.err.join('\n')).not.toContain('via the running gateway');
      expect(stale.out[0]).toContain('No servers configured');
    },
    LOADED_MACHINE_MS,
  );
});
