import { describe, expect, it } from 'vitest';
import type { ApiEvent, ApiServer } from '../../../src/gateway/api/api-types.js';
import { eventually } from '../../helpers/wait.js';
import { apisOf, nextEvent } from './dashboard.js';
import { ALICE, connectClient, fleetForFile } from './replica-fleet.js';

/**
 * The dashboard's live feed across replicas: every replica shows each server's state on every
 * replica (each connects to its servers on its own), labelled by the replica's URL, and a
 * change on one shows on the others' streams; a server notification stored by one replica's
 * connection shows on the others' streams as it comes.
 */
const run = fleetForFile('live feed', { count: 3 });

type Replicas = NonNullable<ApiServer['replicas']>;
const kitchenOf = (servers: readonly ApiServer[]) => servers.find((s) => s.name === 'kitchen');
const stateOn = (replicas: Replicas | undefined, origin: string) =>
  replicas?.find((r) => r.replica === origin)?.state;

describe.skipIf(run.skip)('the live feed across replicas', () => {
  it("shows each replica's state of a server, and a change on one on the others' streams", async () => {
    const [a, b, c] = apisOf(run.fleet.replicas, ALICE);
    const origins = [a.origin, b.origin, c.origin];
    const listed = await eventually(
      async () => kitchenOf((await b.json<{ servers: ApiServer[] }>('/api/servers')).body.servers)?.replicas,
      (replicas) => origins.every((o) => stateOn(replicas, o) === 'connected'),
      { what: 'listed kitchen connected on all three replicas, on B' },
    );
    expect(listed!.map((r) => r.replica).sort()).toEqual([...origins].sort());
    expect(listed!.filter((r) => r.self).map((r) => r.replica)).toEqual([b.origin]);
    expect(listed!.every((r) => r.tools > 0)).toBe(true);

    const dashboard = await c.stream();
    try {
      await nextEvent(dashboard, 'servers');
      // Disabled on A only: C's stream shows it, and kitchen still connected on B and C.
      expect((await a.json('/api/servers/kitchen/disable', { body: {} })).status).toBe(200);
      const disabled = await nextEvent<{ servers: ApiServer[] }>(
        dashboard,
        'servers',
        (d) => stateOn(kitchenOf(d.servers)?.replicas, a.origin) === 'disabled',
      );
      const kitchen = kitchenOf(disabled.servers)!;
      expect(kitchen.state).toBe('connected');
      expect(stateOn(kitchen.replicas, b.origin)).toBe('connected');
      expect((await a.json('/api/servers/kitchen/enable', { body: {} })).status).toBe(200);
      await nextEvent<{ servers: ApiServer[] }>(
        dashboard,
        'servers',
        (d) => stateOn(kitchenOf(d.servers)?.replicas, a.origin) === 'connected',
      );
    } finally {
      await dashboard.cancel();
    }
  });

  it("relays a server event stored by one replica's connection to the others' streams", async () => {
    const [a, , c] = apisOf(run.fleet.replicas, ALICE);
    const dashboard = await c.stream();
    try {
      await nextEvent(dashboard, 'servers');
      const { client } = await connectClient(a.origin, { era: '2026' });
      for (let n = 1; n <= 3; n++) {
        // Sent on the call's own response stream: A's connection alone receives it, and stores it.
        await client.callTool({
          name: 'mcp__kitchen__notify',
          arguments: { method: 'event/replica', params: { n } },
        });
        const event = await nextEvent<ApiEvent>(dashboard, 'event', (e) => e.method === 'event/replica');
        expect(event).toMatchObject({ server: 'kitchen', method: 'event/replica', params: { n } });
      }
    } finally {
      await dashboard.cancel();
    }
  });
});
