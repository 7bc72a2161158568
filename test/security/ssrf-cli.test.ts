import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/storage/open-store.js';
import { killAll, placesUnder, put, runCli } from '../cli/manage-cli.js';
import { type KitchenHttpHandle, startKitchenSinkHttp } from '../fixtures/kitchen-sink.js';

/**
 * The setup verbs that connect servers themselves (`reload`, `doctor`) guard a stored
 * registration as the host does, and leave a config-file entry alone. Loopback only: the
 * registration points at the kitchen sink on 127.0.0.1, which the daemon profile refuses.
 */
let root: string;
let kitchen: KitchenHttpHandle;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'sb-cli-ssrf-'));
  kitchen = await startKitchenSinkHttp({ era: 'legacy' });
});
afterEach(() => killAll());
afterAll(async () => {
  await kitchen.close();
  await rm(root, { recursive: true, force: true });
});

const newPlace = placesUnder(() => root);

describe('CLI verbs guard registrations', () => {
  it('reload and doctor refuse a registration the network policy refuses, and connect the file entry', async () => {
    const place = await newPlace();
    await put(place.file, {
      governance: { profile: 'daemon' },
      servers: { file: { url: kitchen.url, protocol: 'legacy' } },
    });
    await mkdir(place.data, { recursive: true });
    const store = await openStore(join(place.data, 'switchboard.db'));
    await store.servers.upsert({
      name: 'agent',
      entry: { url: kitchen.url, protocol: 'legacy' },
      enabled: true,
      source: 'agent',
    });
    await store.close();
    const initializes = () => kitchen.stats.requests.initialize ?? 0;

    const before = initializes();
    const reload = await runCli(place, '--json', 'reload');
    expect(reload.code).toBe(3);
    const states = JSON.parse(reload.out[0]!).servers as {
      name: string;
      state: string;
      error?: { code: string; message: string };
    }[];
    expect(states.map((s) => [s.name, s.state, s.error?.code])).toEqual([
      ['agent', 'failed', 'POLICY_DENIED'],
      ['file', 'connected', undefined],
    ]);
    expect(states[0]!.error?.message).toContain('127.0.0.1, a loopback address');
    // Only the file entry reached the server.
    expect(initializes()).toBe(before + 1);

    const doctor = await runCli(place, '--json', 'doctor', 'agent');
    expect(doctor.code).toBe(3);
    expect(doctor.out.join('\n')).toContain('governance.network.allowPrivate');
    expect(initializes()).toBe(before + 1);
  });
});
