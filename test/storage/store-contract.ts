/**
 * The contract every storage backend must pass. Each function takes a factory so that the
 * PostgreSQL backend can run the very same tests: `describeStoreContract` needs a fresh,
 * empty store per call; `describeSharedStoreContract` needs two stores over one database.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isSwitchboardError } from '../../src/core/errors.js';
import type { Store } from '../../src/storage/index.js';
import { rejectionOf } from '../helpers/rejection.js';

/** The repositories' behaviour on one store. `factory` returns a fresh, empty store. */
export function describeStoreContract(label: string, factory: () => Promise<Store>): void {
  describe(`store contract: ${label}`, () => {
    const open: Store[] = [];
    async function fresh(): Promise<Store> {
      const store = await factory();
      open.push(store);
      return store;
    }
    afterEach(async () => {
      await Promise.all(open.splice(0).map((s) => s.close()));
    });

    it('servers: upsert, get, list by name, setEnabled, remove', async () => {
      const { servers } = await fresh();
      expect(await servers.list()).toEqual([]);
      expect(await servers.get('fs')).toBeUndefined();
      const entry = { command: 'npx', args: ['-y', 'fs'], env: { A: '1' }, n: 1.5, ok: true, none: null };
      const first = await servers.upsert({ name: 'fs', entry, enabled: true, source: 'config' });
      expect(first).toMatchObject({ name: 'fs', entry, enabled: true, source: 'config' });
      expect(first.createdAt).toBeInstanceOf(Date);
      await servers.upsert({ name: 'alpha', entry: { url: 'http://x' }, enabled: false, source: 'api' });

      const second = await servers.upsert({
        name: 'fs',
        entry: { command: 'x' },
        enabled: false,
        source: 'api',
      });
      expect(second).toMatchObject({ entry: { command: 'x' }, enabled: false, source: 'api' });
      expect(second.createdAt).toEqual(first.createdAt);
      expect(second.updatedAt.getTime()).toBeGreaterThanOrEqual(first.updatedAt.getTime());
      expect((await servers.list()).map((s) => s.name)).toEqual(['alpha', 'fs']);

      expect(await servers.setEnabled('fs', true)).toBe(true);
      expect((await servers.get('fs'))?.enabled).toBe(true);
      expect(await servers.setEnabled('missing', true)).toBe(false);
      expect(await servers.remove('fs')).toBe(true);
      expect(await servers.remove('fs')).toBe(false);
      expect((await servers.list()).map((s) => s.name)).toEqual(['alpha']);
    });

    it('servers: refuses an entry that is not JSON', async () => {
      const { servers } = await fresh();
      const error = await rejectionOf(
        servers.upsert({ name: 'x', entry: undefined, enabled: true, source: 's' }),
      );
      expect(isSwitchboardError(error, 'STORAGE_FAILED')).toBe(true);
      expect(await servers.list()).toEqual([]);
    });

    it('events: append, takePending oldest first, ack, count', async () => {
      const { events } = await fresh();
      const at = new Date('2026-01-01T00:00:00.000Z');
      const ids = [
        await events.append({ server: 's', method: 'notifications/a', params: { x: 1 }, receivedAt: at }),
        await events.append({ server: 's', method: 'notifications/b', params: null, receivedAt: at }),
        await events.append({ server: 't', method: 'notifications/c', receivedAt: at }),
      ];
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
      expect(new Set(ids).size).toBe(3);
      expect(await events.count()).toBe(3);
      expect(await events.count('pending')).toBe(3);

      const firstTwo = await events.takePending(2);
      expect(firstTwo.map((e) => e.id)).toEqual(ids.slice(0, 2));
      expect(firstTwo[0]).toMatchObject({ server: 's', method: 'notifications/a', params: { x: 1 } });
      expect(firstTwo[0]!.receivedAt).toEqual(at);
      expect(firstTwo[1]!.params).toBeNull();
      expect(firstTwo.every((e) => e.status === 'delivered')).toBe(true);

      const rest = await events.takePending(10);
      expect(rest.map((e) => e.id)).toEqual(ids.slice(2));
      expect(rest[0]!.params).toBeUndefined();
      expect(await events.takePending(10)).toEqual([]);
      expect(await events.takePending(0)).toEqual([]);
      expect(await events.count('delivered')).toBe(3);

      expect(await events.ack([ids[0]!, ids[1]!, 999_999])).toBe(2);
      expect(await events.ack([ids[0]!])).toBe(0);
      expect(await events.ack([])).toBe(0);
      expect(await events.count('acked')).toBe(2);
      expect(await events.count('delivered')).toBe(1);
      expect(await events.count('pending')).toBe(0);
    });

    it('events: release hands delivered events back, once', async () => {
      const { events } = await fresh();
      const id = await events.append({ server: 's', method: 'event/x', receivedAt: new Date() });
      expect((await events.takePending(10)).map((e) => e.id)).toEqual([id]);
      expect(await events.takePending(10)).toEqual([]);
      expect(await events.release([id])).toBe(1);
      expect(await events.release([id])).toBe(0);
      expect((await events.takePending(10)).map((e) => e.id)).toEqual([id]);
      await events.ack([id]);
      expect(await events.release([id])).toBe(0);
    });

    it('events: prune by age, optionally by status; ids are not reused', async () => {
      const { events } = await fresh();
      const old = new Date('2026-01-01T00:00:00.000Z');
      const recent = new Date('2026-03-01T00:00:00.000Z');
      const a = await events.append({ server: 's', method: 'm', receivedAt: old });
      await events.append({ server: 's', method: 'm', receivedAt: old });
      await events.append({ server: 's', method: 'm', receivedAt: recent });
      await events.takePending(1);
      await events.ack([a]);

      const cutoff = new Date('2026-02-01T00:00:00.000Z');
      expect(await events.prune({ olderThan: cutoff, status: 'acked' })).toBe(1);
      expect(await events.count()).toBe(2);
      expect(await events.prune({ olderThan: cutoff })).toBe(1);
      expect(await events.count()).toBe(1);
      expect(await events.prune({ olderThan: cutoff })).toBe(0);

      await events.prune({ olderThan: new Date('2100-01-01T00:00:00.000Z') });
      const next = await events.append({ server: 's', method: 'm', receivedAt: recent });
      expect(next).toBeGreaterThan(a + 2);
    });

    it('events: recent pages newest first, any status, by server, with a cursor', async () => {
      const { events } = await fresh();
      expect(await events.recent({ limit: 10 })).toEqual({ events: [] });
      const at = new Date('2026-02-01T00:00:00.000Z');
      const ids: number[] = [];
      for (let i = 0; i < 5; i++)
        ids.push(
          await events.append({
            server: i % 2 === 0 ? 'a' : 'b',
            method: `m${i}`,
            params: { i },
            receivedAt: at,
          }),
        );
      await events.takePending(1);
      await events.ack([ids[0]!]);

      const all = await events.recent({ limit: 10 });
      expect(all.nextCursor).toBeUndefined();
      expect(all.events.map((e) => e.id)).toEqual([...ids].reverse());
      expect(all.events[4]).toMatchObject({ server: 'a', method: 'm0', params: { i: 0 }, status: 'acked' });
      expect(all.events[0]).toMatchObject({ status: 'pending', receivedAt: at });

      const seen: number[] = [];
      let cursor: number | undefined;
      for (let page = 0; page < 10; page++) {
        const result = await events.recent({ server: 'a', limit: 2, before: cursor });
        expect(result.events.length).toBeLessThanOrEqual(2);
        seen.push(...result.events.map((e) => e.id));
        cursor = result.nextCursor;
        if (cursor === undefined) break;
      }
      expect(seen).toEqual([ids[4], ids[2], ids[0]]);
      // Reading takes nothing: every event is still where it was.
      expect(await events.count('pending')).toBe(4);
      // Limits are clamped: at least one, at most 500.
      expect((await events.recent({ limit: 0 })).events).toHaveLength(1);
      expect((await events.recent({ limit: 10_000 })).events).toHaveLength(5);
    });

    it('kv: namespaced JSON values', async () => {
      const { kv } = await fresh();
      expect(await kv.get('era', 'srv')).toBeUndefined();
      await kv.set('era', 'srv', { era: 'modern', version: '2026-07-28' });
      await kv.set('era', 'abc', 'legacy');
      await kv.set('settings', 'srv', 42);
      expect(await kv.get('era', 'srv')).toEqual({ era: 'modern', version: '2026-07-28' });
      expect(await kv.get('settings', 'srv')).toBe(42);

      await kv.set('era', 'srv', null);
      expect(await kv.get('era', 'srv')).toBeNull();
      const list = await kv.list('era');
      expect(list.map(({ key, value }) => ({ key, value }))).toEqual([
        { key: 'abc', value: 'legacy' },
        { key: 'srv', value: null },
      ]);
      expect(list[0]!.updatedAt).toBeInstanceOf(Date);

      expect(await kv.delete('era', 'srv')).toBe(true);
      expect(await kv.delete('era', 'srv')).toBe(false);
      expect(await kv.get('era', 'srv')).toBeUndefined();
      expect(await kv.list('nothing')).toEqual([]);
      expect(isSwitchboardError(await rejectionOf(kv.set('era', 'x', undefined)), 'STORAGE_FAILED')).toBe(
        true,
      );
    });

    it('pins: first hash approved, a change is kept apart until approved', async () => {
      const { pins } = await fresh();
      expect(await pins.get('s', 'read')).toBeUndefined();
      expect(await pins.record('s', 'read', 'h1')).toEqual({ status: 'new' });
      expect(await pins.record('s', 'read', 'h1')).toEqual({ status: 'same' });
      expect(await pins.record('s', 'read', 'h2')).toEqual({ status: 'changed', previousHash: 'h1' });
      expect(await pins.record('s', 'read', 'h3')).toEqual({ status: 'changed', previousHash: 'h1' });
      expect(await pins.get('s', 'read')).toMatchObject({
        approvedHash: 'h1',
        latestHash: 'h3',
        changed: true,
      });
      await pins.record('s', 'write', 'w1');
      await pins.record('a', 'z', 'z1');
      await pins.record('a', 'z', 'z2');
      expect((await pins.listChanged()).map((p) => `${p.server}/${p.tool}`)).toEqual(['a/z', 's/read']);

      // Back to the approved definition: no longer changed.
      expect(await pins.record('a', 'z', 'z1')).toEqual({ status: 'same' });
      await pins.approve('s', 'read', 'h3');
      expect(await pins.listChanged()).toEqual([]);
      expect(await pins.record('s', 'read', 'h3')).toEqual({ status: 'same' });
      expect(await pins.record('s', 'read', 'h1')).toEqual({ status: 'changed', previousHash: 'h3' });

      await pins.approve('s', 'new-tool', 'n1');
      expect(await pins.get('s', 'new-tool')).toMatchObject({
        approvedHash: 'n1',
        latestHash: 'n1',
        changed: false,
      });
      expect(await pins.record('s', 'new-tool', 'n1')).toEqual({ status: 'same' });
    });

    it('audit: append, newest first, filters and cursor pages', async () => {
      const { audit } = await fresh();
      const base = Date.parse('2026-01-01T00:00:00.000Z');
      const ids: number[] = [];
      for (let i = 0; i < 7; i++)
        ids.push(
          await audit.append({
            action: 'tools/call',
            at: new Date(base + i * 60_000),
            server: i % 2 === 0 ? 'even' : 'odd',
            actor: 'agent',
            outcome: 'allowed',
            details: { i },
          }),
        );
      await audit.append({ action: 'startup' });

      const all = await audit.query();
      expect(all.entries).toHaveLength(8);
      expect(all.nextCursor).toBeUndefined();
      expect(all.entries[0]).toMatchObject({ action: 'startup', server: null, details: undefined });
      expect(all.entries[1]).toMatchObject({ id: ids[6], server: 'even', actor: 'agent', details: { i: 6 } });

      const even = await audit.query({ server: 'even' });
      expect(even.entries.map((e) => (e.details as { i: number }).i)).toEqual([6, 4, 2, 0]);
      const window = await audit.query({
        since: new Date(base + 60_000),
        until: new Date(base + 3 * 60_000),
      });
      expect(window.entries.map((e) => (e.details as { i: number }).i)).toEqual([2, 1]);
      expect((await audit.query({ actor: 'agent' })).entries).toHaveLength(7);
      expect((await audit.query({ action: 'startup' })).entries.map((e) => e.action)).toEqual(['startup']);
      expect((await audit.query({ actor: 'nobody' })).entries).toEqual([]);
      expect((await audit.query({ outcome: 'allowed', server: 'odd' })).entries).toHaveLength(3);
      expect((await audit.query({ outcome: 'denied' })).entries).toEqual([]);

      const seen: number[] = [];
      let cursor: number | undefined;
      for (let page = 0; page < 10; page++) {
        const result = await audit.query({ server: 'odd', limit: 2, before: cursor });
        seen.push(...result.entries.map((e) => e.id));
        cursor = result.nextCursor;
        if (cursor === undefined) break;
      }
      expect(seen).toEqual([ids[5], ids[3], ids[1]]);
    });

    it('grants: per session and frame, idempotent, ended with their frame or session', async () => {
      const { grants } = await fresh();
      await grants.grant({ session: 's1', group: 'github' });
      await grants.grant({ session: 's1', group: 'github' });
      await grants.grant({ session: 's1', group: 'config' });
      await grants.grant({ session: 's1', frame: 'sub-1', group: 'fs' });
      await grants.grant({ session: 's2', group: 'github' });
      expect((await grants.list('s1')).map((g) => g.group)).toEqual(['config', 'github']);
      // A sub-agent frame has its own grants only.
      expect((await grants.list('s1', 'sub-1')).map((g) => g.group)).toEqual(['fs']);
      expect((await grants.list('s1'))[0]!.grantedAt).toBeInstanceOf(Date);
      expect(await grants.revoke({ session: 's1', group: 'config' })).toBe(true);
      expect(await grants.revoke({ session: 's1', group: 'config' })).toBe(false);
      expect(await grants.endFrame('s1', 'sub-1')).toBe(1);
      expect(await grants.list('s1', 'sub-1')).toEqual([]);
      expect(await grants.endSession('s1')).toBe(1);
      expect((await grants.list('s2')).map((g) => g.group)).toEqual(['github']);
    });

    it('tokens: opaque secrets by server and issuer', async () => {
      const { tokens } = await fresh();
      expect(await tokens.get('gh', 'https://issuer.example')).toBeUndefined();
      await tokens.set('gh', 'https://issuer.example', 'cipher-1');
      await tokens.set('gh', 'https://issuer.example', 'cipher-2');
      await tokens.set('gh', 'https://other.example', 'cipher-3');
      expect(await tokens.get('gh', 'https://issuer.example')).toBe('cipher-2');
      expect(await tokens.issuers('gh')).toEqual(['https://issuer.example', 'https://other.example']);
      expect(await tokens.delete('gh', 'https://other.example')).toBe(1);
      expect(await tokens.delete('gh')).toBe(1);
      expect(await tokens.issuers('gh')).toEqual([]);
    });

    it('locks: a lease is exclusive until released or expired', async () => {
      const { locks } = await fresh();
      expect(await locks.holder('refresh/gh')).toBeUndefined();
      expect(await locks.tryAcquire('refresh/gh', 'a', 60_000)).toBe(true);
      expect(await locks.tryAcquire('refresh/gh', 'b', 60_000)).toBe(false);
      // Another name is another lease.
      expect(await locks.tryAcquire('refresh/other', 'b', 60_000)).toBe(true);
      const lease = await locks.holder('refresh/gh');
      expect(lease?.owner).toBe('a');
      expect(lease!.expiresAt.getTime()).toBeGreaterThan(Date.now() + 50_000);

      // The owner may take it again (extending it); nobody else may release it.
      expect(await locks.tryAcquire('refresh/gh', 'a', 120_000)).toBe(true);
      expect((await locks.holder('refresh/gh'))!.expiresAt.getTime()).toBeGreaterThan(Date.now() + 110_000);
      expect(await locks.release('refresh/gh', 'b')).toBe(false);
      expect(await locks.tryAcquire('refresh/gh', 'b', 60_000)).toBe(false);
      expect(await locks.release('refresh/gh', 'a')).toBe(true);
      expect(await locks.release('refresh/gh', 'a')).toBe(false);
      expect(await locks.holder('refresh/gh')).toBeUndefined();
      expect(await locks.tryAcquire('refresh/gh', 'b', 60_000)).toBe(true);

      // A lease whose time has passed (here: a negative ttl) is free for the next taker.
      expect(await locks.tryAcquire('expired', 'dead', -1000)).toBe(true);
      expect(await locks.tryAcquire('expired', 'alive', 60_000)).toBe(true);
      expect((await locks.holder('expired'))?.owner).toBe('alive');
      // The former holder's late release does not free the new holder's lease.
      expect(await locks.release('expired', 'dead')).toBe(false);
      expect((await locks.holder('expired'))?.owner).toBe('alive');
    });

    it("replicas: heartbeats carry front-ends and servers; a sweep takes a gone replica's items", async () => {
      const { replicas, inboxItems } = await fresh();
      await replicas.beat('a', 'http://a', 2);
      const seen = await replicas.beat('b', 'http://b');
      expect(seen.map((r) => [r.id, r.frontEnds, r.servers])).toEqual([
        ['a', 2, undefined],
        ['b', 0, undefined],
      ]);
      await replicas.publishServers('a', [{ name: 'kitchen', state: 'connected', tools: 3 }]);
      const after = await replicas.beat('b', 'http://b', 1);
      expect(after.find((r) => r.id === 'a')?.servers).toEqual([
        { name: 'kitchen', state: 'connected', tools: 3 },
      ]);
      expect(after.find((r) => r.id === 'b')?.frontEnds).toBe(1);

      const item = (id: string, owner: string, at: string) => ({
        id,
        owner,
        item: { id, kind: 'approval', preview: '{}' },
        createdAt: new Date(at),
      });
      await inboxItems.add(item('i2', 'b', '2026-01-01T00:00:02.000Z'));
      await inboxItems.add(item('i1', 'a', '2026-01-01T00:00:01.000Z'));
      await inboxItems.add(item('i3', 'a', '2026-01-01T00:00:03.000Z'));
      expect((await inboxItems.list()).map((i) => [i.id, i.owner])).toEqual([
        ['i1', 'a'],
        ['i2', 'b'],
        ['i3', 'a'],
      ]);
      expect((await inboxItems.list())[0]?.item).toEqual({ id: 'i1', kind: 'approval', preview: '{}' });
      expect(await inboxItems.remove('i3')).toBe(true);
      expect(await inboxItems.remove('i3')).toBe(false);
      // A sweep of replicas gone since an hour ago leaves these; a replica gone takes its items along.
      await replicas.sweep(new Date(Date.now() - 3_600_000));
      expect((await inboxItems.list()).map((i) => i.id)).toEqual(['i1', 'i2']);
      await inboxItems.removeOwnedBy('b');
      expect((await inboxItems.list()).map((i) => i.id)).toEqual(['i1']);
      await replicas.sweep(new Date(Date.now() + 60_000));
      expect(await inboxItems.list()).toEqual([]);
    });

    it('stream events: kept by token and sequence, trimmed, dropped by session, pruned by age', async () => {
      const { streamEvents } = await fresh();
      const at = new Date('2026-01-01T00:00:00.000Z');
      const event = (token: string, seq: number, message: string, session = 's1') => ({
        token,
        seq,
        session,
        streamId: `stream-${token}`,
        message,
        at: new Date(at.getTime() + seq),
      });
      await streamEvents.append([
        { ...event('t1', 1, '{}'), requests: [7, 'x'] },
        event('t1', 2, '{"jsonrpc":"2.0","method":"m"}'),
        event('t1', 3, '{"jsonrpc":"2.0","id":7,"result":{}}'),
        event('t2', 1, '{}', 's2'),
      ]);
      // A repeated event is kept once.
      await streamEvents.append([event('t1', 3, '{"other":true}')]);
      expect(await streamEvents.head('t1')).toEqual({
        session: 's1',
        streamId: 'stream-t1',
        requests: [7, 'x'],
      });
      expect(await streamEvents.head('t2')).toEqual({ session: 's2', streamId: 'stream-t2' });
      expect(await streamEvents.head('none')).toBeUndefined();
      expect(await streamEvents.after('t1', 1, 10)).toEqual([
        { seq: 2, message: '{"jsonrpc":"2.0","method":"m"}' },
        { seq: 3, message: '{"jsonrpc":"2.0","id":7,"result":{}}' },
      ]);
      expect((await streamEvents.after('t1', 0, 2)).map((e) => e.seq)).toEqual([1, 2]);
      // Trimming keeps the head (its requests) and what is at or after `seq`.
      await streamEvents.trim('t1', 3);
      expect((await streamEvents.after('t1', 0, 10)).map((e) => e.seq)).toEqual([1, 3]);
      expect(await streamEvents.prune(new Date(at.getTime() + 2))).toBe(2);
      expect((await streamEvents.after('t1', 0, 10)).map((e) => e.seq)).toEqual([3]);
      expect(await streamEvents.dropSession('s1')).toBe(1);
      expect(await streamEvents.head('t1')).toBeUndefined();
    });

    it('close() twice is harmless', async () => {
      const store = await fresh();
      await store.close();
      await store.close();
    });
  });
}

/**
 * Behaviour across two stores over one database (two processes in production).
 * `factory` returns two stores over the same, empty database.
 */
export function describeSharedStoreContract(
  label: string,
  factory: () => Promise<readonly [Store, Store]>,
): void {
  describe(`shared store contract: ${label}`, () => {
    it('interleaved takePending from two stores never hands out an event twice', async () => {
      const [a, b] = await factory();
      try {
        const total = 300;
        const appended: number[] = [];
        const at = new Date('2026-01-01T00:00:00.000Z');
        // A producer on `a` keeps appending while both stores take.
        const produce = async () => {
          for (let i = 0; i < total; i++) {
            appended.push(
              await (i % 2 ? a : b).events.append({ server: 's', method: 'm', params: i, receivedAt: at }),
            );
          }
        };
        const taken = new Map<Store, number[]>([
          [a, []],
          [b, []],
        ]);
        let producing = true;
        const consume = async (store: Store) => {
          // Bounded: every round either takes something or the producer advanced.
          for (let round = 0; round < total * 4; round++) {
            const batch = await store.events.takePending(7);
            taken.get(store)!.push(...batch.map((e) => e.id));
            if (batch.length === 0 && !producing) return;
          }
        };
        const consumers = Promise.all([consume(a), consume(b)]);
        await produce();
        producing = false;
        await consumers;

        const fromA = taken.get(a)!;
        const fromB = taken.get(b)!;
        expect(fromA.length).toBeGreaterThan(0);
        expect(fromB.length).toBeGreaterThan(0);
        const all = [...fromA, ...fromB];
        expect(new Set(all).size).toBe(all.length);
        expect([...all].sort((x, y) => x - y)).toEqual([...appended].sort((x, y) => x - y));
        expect(await a.events.count('delivered')).toBe(total);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });

    it('locks: two stores racing for the same lease, exactly one wins each time', async () => {
      const [a, b] = await factory();
      try {
        for (let i = 0; i < 50; i++) {
          const name = `race/${i}`;
          // Half the names start with an expired lease, so the race is on the update path too.
          if (i % 2) expect(await a.locks.tryAcquire(name, 'dead', -1000)).toBe(true);
          const [wonA, wonB] = await Promise.all([
            a.locks.tryAcquire(name, 'a', 60_000),
            b.locks.tryAcquire(name, 'b', 60_000),
          ]);
          expect([wonA, wonB].filter(Boolean)).toHaveLength(1);
          expect((await b.locks.holder(name))?.owner).toBe(wonA ? 'a' : 'b');
        }
        expect(await a.locks.release('race/0', 'x')).toBe(false);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });

    it('what one store writes, the other reads', async () => {
      const [a, b] = await factory();
      try {
        await a.kv.set('ns', 'k', { v: 1 });
        expect(await b.kv.get('ns', 'k')).toEqual({ v: 1 });
        expect(await a.pins.record('s', 't', 'h')).toEqual({ status: 'new' });
        expect(await b.pins.record('s', 't', 'h')).toEqual({ status: 'same' });
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });
  });
}
