import { describe, expect, it } from 'vitest';
import type { ApiError, ApiInboxItem } from '../../../src/gateway/api/api-types.js';
import { eventually } from '../../helpers/wait.js';
import { apisOf, nextEvent } from './dashboard.js';
import { ALICE, connectClient, fleetForFile } from './replica-fleet.js';

/**
 * One Inbox across three replicas: an approval or elicitation raised by a call on one replica
 * shows on every replica's API and dashboard stream, is answered on any, and the answer reaches
 * the waiting call. Two answers at once on two replicas: exactly one wins, the other is told
 * the item was answered already. The items of a replica killed with SIGKILL leave every Inbox.
 */
// Every call asks; the Inbox decides (not the calling client).
const run = fleetForFile('inbox', {
  count: 3,
  governance: { mode: 'read-only' },
  gateway: { consent: 'off' },
});

const textOf = (result: { content?: unknown }) => ((result.content ?? []) as { text?: string }[])[0]?.text;

describe.skipIf(run.skip)('one Inbox across replicas', () => {
  it('shows an approval everywhere, takes the first of two answers at once, and the call goes on', async () => {
    const [a, b, c] = apisOf(run.fleet.replicas, ALICE);
    // The dashboard on C shows the calls waiting on A (each `serve` has its `switchboard inbox` front-end too).
    const dashboard = await c.stream();
    try {
      await nextEvent(dashboard, 'inbox');
      const client = (await connectClient(a.origin, { era: '2026' })).client;
      for (let round = 0; round < 4; round++) {
        const text = `approved across replicas ${round}`;
        const call = client.callTool(
          { name: 'mcp__kitchen__echo', arguments: { text } },
          { timeout: 60_000 },
        );
        const shown = await nextEvent<{ items: ApiInboxItem[] }>(
          dashboard,
          'inbox',
          (d) => d.items.length > 0,
        );
        const item = shown.items[0]!;
        expect(item).toMatchObject({ kind: 'approval', server: 'kitchen', tool: 'echo', replica: a.origin });
        expect(item.preview).toContain(text);
        // Listed on every replica; on its own without a replica label.
        await eventually(
          () => b.inbox(),
          (items) => items.some((i) => i.id === item.id && i.replica === a.origin),
          { what: 'listed the item on B' },
        );
        expect((await a.inbox()).find((i) => i.id === item.id)?.replica).toBeUndefined();

        // Two answers at once, on B and on C: one wins, the other changed nothing and is told so.
        const [first, second] = round % 2 === 0 ? [b, c] : [c, b];
        const answers = await Promise.all([
          first.json<{ action: string } | ApiError>(`/api/inbox/${item.id}`, { body: { action: 'accept' } }),
          second.json<{ action: string } | ApiError>(`/api/inbox/${item.id}`, {
            body: { action: 'decline' },
          }),
        ]);
        expect(answers.map((x) => x.status).sort()).toEqual([200, 409]);
        const won = answers.find((x) => x.status === 200)!.body as { action: string };
        const lost = answers.find((x) => x.status === 409)!.body as ApiError;
        expect(lost.error.code).toBe('ALREADY_ANSWERED');
        expect(lost.error.message).toContain(item.id);
        const result = await call;
        if (won.action === 'accept') expect(textOf(result)).toBe(text);
        else expect(result.isError).toBe(true);
        await nextEvent<{ items: ApiInboxItem[] }>(dashboard, 'inbox', (d) => d.items.length === 0);
        await eventually(
          () => b.inbox(),
          (items) => items.length === 0,
          { what: 'B listed the item no more' },
        );
      }
    } finally {
      await dashboard.cancel();
    }
  });

  it('carries an elicitation and its answer from one replica to the call on another', async () => {
    const [a, b, c] = apisOf(run.fleet.replicas, ALICE);
    const dashboard = await c.stream();
    try {
      await nextEvent(dashboard, 'inbox');
      // A 2025 session on B whose client cannot answer forms: the server's question goes to the Inbox.
      const session = (await connectClient(b.origin)).client;
      const call = session.callTool({ name: 'mcp__kitchen__confirm', arguments: {} }, { timeout: 60_000 });
      const approval = (
        await nextEvent<{ items: ApiInboxItem[] }>(dashboard, 'inbox', (d) =>
          d.items.some((i) => i.kind === 'approval'),
        )
      ).items[0]!;
      expect(approval.replica).toBe(b.origin);
      expect((await c.json(`/api/inbox/${approval.id}`, { body: { action: 'accept' } })).status).toBe(200);
      const question = (
        await nextEvent<{ items: ApiInboxItem[] }>(dashboard, 'inbox', (d) =>
          d.items.some((i) => i.kind === 'elicitation'),
        )
      ).items.find((i) => i.kind === 'elicitation')!;
      expect(question).toMatchObject({
        server: 'kitchen',
        mode: 'form',
        preview: 'Please confirm',
        replica: b.origin,
      });
      await eventually(
        () => a.inbox(),
        (items) => items.some((i) => i.id === question.id),
        { what: 'listed the question on A' },
      );
      // A form answer that does not fit is refused where the item waits, and it still waits.
      const wrong = await a.json<ApiError>(`/api/inbox/${question.id}`, {
        body: { action: 'accept', content: { color: 'blue' } },
      });
      expect(wrong.status).toBe(400);
      const content = { confirm: true, name: 'across replicas', color: 'red' };
      const answered = await a.json(`/api/inbox/${question.id}`, { body: { action: 'accept', content } });
      expect(answered.status).toBe(200);
      expect(JSON.parse(textOf(await call)!)).toEqual({ action: 'accept', content });
    } finally {
      await dashboard.cancel();
    }
  });

  it("drops a killed replica's items from every Inbox", async () => {
    const [a, b, c] = apisOf(run.fleet.replicas, ALICE);
    const dashboard = await c.stream();
    try {
      await nextEvent(dashboard, 'inbox');
      const client = (await connectClient(a.origin, { era: '2026' })).client;
      void client
        .callTool({ name: 'mcp__kitchen__echo', arguments: { text: 'orphaned' } })
        .catch(() => undefined);
      const fromA = (items: readonly ApiInboxItem[]) => items.find((i) => i.replica === a.origin);
      const item = fromA(
        (await nextEvent<{ items: ApiInboxItem[] }>(dashboard, 'inbox', (d) => fromA(d.items) !== undefined))
          .items,
      )!;
      const victim = run.fleet.replicas[0]!;
      process.kill(victim.pid, 'SIGKILL');
      await victim.exited;
      const killedAt = Date.now();
      // Gone from every Inbox once its heartbeat is stale (5 s), with a margin for a loaded machine.
      await nextEvent<{ items: ApiInboxItem[] }>(
        dashboard,
        'inbox',
        (d) => !d.items.some((i) => i.id === item.id),
        20_000,
      );
      const gone = Date.now() - killedAt;
      console.log(`a killed replica's inbox item left the dashboard ${gone} ms after the kill`);
      expect(gone).toBeLessThan(15_000);
      expect((await b.inbox()).map((i) => i.id)).not.toContain(item.id);
      const late = await b.json<ApiError>(`/api/inbox/${item.id}`, { body: { action: 'accept' } });
      expect(late.status).toBe(404);
    } finally {
      await dashboard.cancel();
    }
  });
});
