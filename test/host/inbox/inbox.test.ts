import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type ApprovalRequest,
  type ElicitationRequest,
  Inbox,
  type InboxItem,
  type InboxOutcome,
} from '../../../src/host/inbox/inbox.js';
import { MASKED } from '../../../src/policy/masking.js';
import { rejection, thrown } from '../../helpers/rejection.js';

const approval = (over: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  kind: 'approval',
  server: 'gh',
  tool: 'create_issue',
  session: 's1',
  args: { title: 'Bug', token: 'tok-123' },
  reason: 'read-only mode asks before every MCP call',
  ...over,
});

const form = (over: Partial<ElicitationRequest> = {}): ElicitationRequest => ({
  kind: 'elicitation',
  server: 'db',
  message: 'Connect to the database',
  requestedSchema: {
    type: 'object',
    properties: {
      user: { type: 'string', title: 'User name', minLength: 2 },
      password: { type: 'string' },
      port: { type: 'integer', minimum: 1, maximum: 65535 },
      mode: { type: 'string', enum: ['ro', 'rw'] },
      remember: { type: 'boolean' },
      tables: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] } },
    },
    required: ['user', 'password'],
  },
  ...over,
});

/** Records every event, and list() snapshots taken at each. */
function recordEvents(inbox: Inbox) {
  const seen: unknown[] = [];
  inbox.on('added', (item) => seen.push({ event: 'added', item, list: inbox.list() }));
  inbox.on('resolved', (item, outcome) =>
    seen.push({ event: 'resolved', item, outcome, list: inbox.list() }),
  );
  return seen;
}

describe('Inbox', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-01-02T03:04:05Z'));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('queues an approval with a masked preview and answers the asker', async () => {
    const inbox = new Inbox();
    const added: InboxItem[] = [];
    inbox.on('added', (item) => added.push(item));
    const answer = inbox.ask(approval());
    expect(added).toHaveLength(1);
    const item = added[0]!;
    expect(item).toMatchObject({
      kind: 'approval',
      server: 'gh',
      tool: 'create_issue',
      session: 's1',
      reason: 'read-only mode asks before every MCP call',
      preview: `{"title":"Bug","token":"${MASKED}"}`,
    });
    expect(item.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(item.createdAt.toISOString()).toBe('2026-01-02T03:04:05.000Z');
    expect(item.deadline.getTime() - item.createdAt.getTime()).toBe(5 * 60_000);
    expect(Object.isFrozen(item)).toBe(true);
    expect(inbox.get(item.id)).toBe(item);
    expect(inbox.resolve(item.id, 'accept', undefined, { always: true })).toBe(true);
    await expect(answer).resolves.toEqual({ action: 'accept', always: true });
    expect(inbox.list()).toEqual([]);
    expect(inbox.get(item.id)).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('declines at the deadline (default 5 minutes) and tells listeners why', async () => {
    const inbox = new Inbox();
    const outcomes: InboxOutcome[] = [];
    inbox.on('resolved', (_item, outcome) => outcomes.push(outcome));
    const answer = inbox.ask(approval());
    vi.advanceTimersByTime(5 * 60_000 - 1);
    expect(inbox.size).toBe(1);
    vi.advanceTimersByTime(1);
    await expect(answer).resolves.toEqual({ action: 'decline', reason: 'timeout' });
    expect(outcomes).toEqual([{ action: 'decline', reason: 'timeout' }]);
    expect(inbox.size).toBe(0);
  });

  it('takes the timeout from the constructor or the call', async () => {
    const inbox = new Inbox({ timeoutMs: 1_000 });
    const short = inbox.ask(approval(), { timeoutMs: 10 });
    const long = inbox.ask(approval());
    expect(inbox.list().map((i) => i.deadline.getTime() - i.createdAt.getTime())).toEqual([10, 1_000]);
    vi.advanceTimersByTime(10);
    await expect(short).resolves.toEqual({ action: 'decline', reason: 'timeout' });
    expect(inbox.size).toBe(1);
    vi.advanceTimersByTime(990);
    await expect(long).resolves.toEqual({ action: 'decline', reason: 'timeout' });
    expect(thrown(() => new Inbox({ timeoutMs: 0 })).code).toBe('INVALID_ARGUMENT');
    expect((await rejection(inbox.ask(approval(), { timeoutMs: Number.NaN }))).code).toBe('INVALID_ARGUMENT');
  });

  it('cancels and removes an item when the asker aborts', async () => {
    const inbox = new Inbox();
    const seen = recordEvents(inbox);
    const controller = new AbortController();
    const answer = inbox.ask(approval(), { signal: controller.signal });
    controller.abort();
    await expect(answer).resolves.toEqual({ action: 'cancel', reason: 'aborted' });
    expect(inbox.size).toBe(0);
    expect(seen.map((e) => (e as { event: string }).event)).toEqual(['added', 'resolved']);
    expect(vi.getTimerCount()).toBe(0);

    const before = seen.length;
    await expect(inbox.ask(approval(), { signal: AbortSignal.abort() })).resolves.toEqual({
      action: 'cancel',
      reason: 'aborted',
    });
    expect(seen).toHaveLength(before);
  });

  it('answers an item once: a second resolve and an unknown id return false', async () => {
    const inbox = new Inbox();
    const answer = inbox.ask(approval());
    const [item] = inbox.list();
    expect(inbox.resolve(item!.id, 'decline')).toBe(true);
    expect(inbox.resolve(item!.id, 'accept')).toBe(false);
    expect(inbox.resolve('no-such-id', 'accept')).toBe(false);
    await expect(answer).resolves.toEqual({ action: 'decline', reason: 'user' });

    // A second answer is told it came too late, and how the item went; an unknown id, that nothing waits.
    const late = thrown(() => inbox.resolveOrThrow(item!.id, 'accept'));
    expect(late.code).toBe('ALREADY_ANSWERED');
    expect(late.message).toContain(item!.id);
    expect(late.message).toContain('declined by a person');
    expect(inbox.ended(item!.id)?.outcome).toEqual({ action: 'decline', reason: 'user' });
    const unknown = thrown(() => inbox.resolveOrThrow('no-such-id', 'accept'));
    expect(unknown.code).toBe('NOT_FOUND');
    expect(unknown.details.id).toBe('no-such-id');
  });

  it('remembers ended items for a while, and at most 500 of them', async () => {
    const inbox = new Inbox({ timeoutMs: 1_000 });
    const first = inbox.ask(approval());
    const [item] = inbox.list();
    vi.advanceTimersByTime(1_000);
    await expect(first).resolves.toEqual({ action: 'decline', reason: 'timeout' });
    expect(thrown(() => inbox.resolveOrThrow(item!.id, 'accept')).message).toContain('at its deadline');
    for (let i = 0; i < 500; i++) {
      void inbox.ask(approval());
      inbox.resolve(inbox.list()[0]!.id, 'cancel');
    }
    expect(inbox.ended(item!.id)).toBeUndefined();
    void inbox.ask(approval());
    const [last] = inbox.list();
    inbox.resolve(last!.id, 'accept');
    vi.advanceTimersByTime(10 * 60_000 + 1);
    expect(inbox.ended(last!.id)).toBeUndefined();
    expect(thrown(() => inbox.resolveOrThrow(last!.id, 'accept')).code).toBe('NOT_FOUND');
  });

  it('counts front-ends of other processes, and tells them how many are attached here', () => {
    const inbox = new Inbox();
    const counts: number[] = [];
    let elsewhere = false;
    inbox.shareFrontEnds({ elsewhere: () => elsewhere, changed: (n) => counts.push(n) });
    expect(inbox.hasFrontEnd()).toBe(false);
    elsewhere = true;
    expect(inbox.hasFrontEnd()).toBe(true);
    elsewhere = false;
    const frontEnd = () => undefined;
    inbox.on('added', frontEnd);
    expect(inbox.hasFrontEnd()).toBe(true);
    // Observers of `queued` answer nothing: not front-ends.
    inbox.on('queued', frontEnd);
    inbox.off('added', frontEnd);
    expect(inbox.hasFrontEnd()).toBe(false);
    expect(counts).toEqual([1, 0]);
  });

  it('rejects an answer that is not accept, decline or cancel', () => {
    const inbox = new Inbox();
    void inbox.ask(approval());
    const [item] = inbox.list();
    expect(thrown(() => inbox.resolve(item!.id, 'approve' as 'accept')).code).toBe('INVALID_ARGUMENT');
    expect(inbox.size).toBe(1);
    inbox.close();
  });

  it('lists oldest first and filters by kind, server and session', () => {
    const inbox = new Inbox();
    void inbox.ask(approval({ server: 'a', session: 'x' }));
    vi.advanceTimersByTime(1);
    void inbox.ask(form({ server: 'b', session: 'x' }));
    vi.advanceTimersByTime(1);
    void inbox.ask(approval({ server: 'b', session: 'y' }));
    const names = (items: readonly InboxItem[]) => items.map((i) => `${i.kind}:${i.server}:${i.session}`);
    expect(names(inbox.list())).toEqual(['approval:a:x', 'elicitation:b:x', 'approval:b:y']);
    expect(names(inbox.list({ kind: 'approval' }))).toEqual(['approval:a:x', 'approval:b:y']);
    expect(names(inbox.list({ server: 'b' }))).toEqual(['elicitation:b:x', 'approval:b:y']);
    expect(names(inbox.list({ session: 'x', kind: 'elicitation' }))).toEqual(['elicitation:b:x']);
    expect(names(inbox.list({ session: 'z' }))).toEqual([]);
    const times = inbox.list().map((i) => i.createdAt.getTime());
    expect(times).toEqual([...times].sort((p, q) => p - q));
    expect(Object.isFrozen(inbox.list())).toBe(true);
    inbox.close();
  });

  it('checks form content, leaving the item pending when it does not fit', async () => {
    const inbox = new Inbox();
    const answer = inbox.ask(form());
    const [item] = inbox.list();
    const id = item!.id;
    const secret = 'correct horse battery staple';
    const cases: [Record<string, unknown>, string[]][] = [
      [{ user: 'bob' }, ['password']],
      [{ user: 'bob', password: secret, port: 1.5 }, ['port']],
      [{ user: 'bob', password: secret, port: 70000 }, ['port']],
      [{ user: 'b', password: secret }, ['user']],
      [{ user: 'bob', password: secret, mode: 'admin' }, ['mode']],
      [{ user: 'bob', password: secret, remember: 'yes' }, ['remember']],
      [{ user: 'bob', password: secret, tables: ['a', 'z'] }, ['tables']],
      [{ user: 'bob', password: secret, extra: secret }, ['extra']],
      [{ user: 42, password: 7 }, ['user', 'password']],
    ];
    for (const [content, fields] of cases) {
      const error = thrown(() => inbox.resolve(id, 'accept', content));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect([...(error.details.fields as string[])].sort()).toEqual([...fields].sort());
      for (const field of fields) expect(error.message).toContain(`"${field}"`);
      expect(error.message).not.toContain(secret);
      expect(inbox.get(id)).toBe(item);
    }
    expect(thrown(() => inbox.resolve(id, 'accept', ['x'] as unknown as Record<string, unknown>)).code).toBe(
      'INVALID_ARGUMENT',
    );
    const good = {
      user: 'bob',
      password: secret,
      port: 5432,
      mode: 'ro',
      remember: false,
      tables: ['a', 'c'],
    };
    expect(inbox.resolve(id, 'accept', good)).toBe(true);
    await expect(answer).resolves.toEqual({ action: 'accept', content: good, always: false });
  });

  it('marks secret form fields and masks credentials in the message', () => {
    const inbox = new Inbox();
    const jwt = `${'eyJhbGciOiJIUzI1NiJ9'}.${'eyJzdWIiOiIxIn0'}.${'c2lnbmF0dXJl'}`;
    void inbox.ask(form({ message: `Your old session ${jwt} expired; log in again` }));
    const [item] = inbox.list();
    expect(item!.mode).toBe('form');
    expect(item!.secretFields).toEqual(['password']);
    expect(item!.preview).toBe(`Your old session ${MASKED} expired; log in again`);
    expect(Object.isFrozen(item!.requestedSchema)).toBe(true);
    inbox.close();
  });

  it('never puts elicitation content on an event, an item or a list', async () => {
    const inbox = new Inbox();
    const seen = recordEvents(inbox);
    const secret = 'hunter2-very-secret';
    const answer = inbox.ask(form());
    const [item] = inbox.list();
    expect(inbox.resolve(item!.id, 'accept', { user: 'bob', password: secret })).toBe(true);
    const result = await answer;
    expect(result.action === 'accept' && result.content?.password).toBe(secret);
    const everything = JSON.stringify({ seen, list: inbox.list(), item });
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain('"bob"');
    expect(seen).toHaveLength(2);
    expect((seen[1] as { outcome: unknown }).outcome).toEqual({ action: 'accept', always: false });
    expect(Object.keys(item!)).not.toContain('content');
  });

  it('handles URL elicitations: no content, the URL on the item', async () => {
    const inbox = new Inbox();
    const answer = inbox.ask({
      kind: 'elicitation',
      server: 'pay',
      message: 'Authorize the payment',
      url: 'https://pay.example.com/approve?code=abc',
      elicitationId: 'e-1',
    });
    const [item] = inbox.list();
    expect(item).toMatchObject({
      mode: 'url',
      url: 'https://pay.example.com/approve?code=abc',
      elicitationId: 'e-1',
    });
    expect(item!.requestedSchema).toBeUndefined();
    inbox.resolve(item!.id, 'accept', { ignored: true });
    await expect(answer).resolves.toEqual({ action: 'accept', always: false });

    const both = inbox.ask({ ...form(), url: 'https://x.example.com' });
    expect((await rejection(both)).code).toBe('INVALID_ARGUMENT');
  });

  it('refuses to hold more than maxPending items, and takes more once some are answered', async () => {
    const inbox = new Inbox({ maxPending: 3 });
    const added: InboxItem[] = [];
    inbox.on('added', (item) => added.push(item));
    for (let i = 0; i < 3; i++) void inbox.ask(approval());
    const error = await rejection(inbox.ask(form()));
    expect(error.code).toBe('INBOX_FULL');
    expect(error.details).toMatchObject({ reason: 'inbox_full', maxPending: 3, server: 'db' });
    expect(error.message).toContain('maxPending');
    expect(added).toHaveLength(3);
    inbox.resolve(added[0]!.id, 'decline');
    const fourth = inbox.ask(approval());
    expect(inbox.size).toBe(3);
    inbox.close();
    await expect(fourth).resolves.toEqual({ action: 'decline', reason: 'closed' });
  });

  it('close() declines everything pending and every later ask', async () => {
    const inbox = new Inbox();
    const outcomes: InboxOutcome[] = [];
    inbox.on('resolved', (_item, outcome) => outcomes.push(outcome));
    const answers = [inbox.ask(approval()), inbox.ask(form())];
    inbox.close();
    await expect(Promise.all(answers)).resolves.toEqual([
      { action: 'decline', reason: 'closed' },
      { action: 'decline', reason: 'closed' },
    ]);
    expect(outcomes).toHaveLength(2);
    expect(vi.getTimerCount()).toBe(0);
    await expect(inbox.ask(approval())).resolves.toEqual({ action: 'decline', reason: 'closed' });
    expect(inbox.size).toBe(0);
  });

  it('keeps working when a listener throws', async () => {
    const inbox = new Inbox();
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    inbox.on('added', () => {
      throw new Error('front-end bug');
    });
    const answer = inbox.ask(approval());
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('front-end bug'));
    const [item] = inbox.list();
    inbox.resolve(item!.id, 'accept');
    await expect(answer).resolves.toEqual({ action: 'accept', always: false });
    warn.mockRestore();
  });

  it('lets a listener answer synchronously from the added event', async () => {
    const inbox = new Inbox();
    inbox.on('added', (item) => inbox.resolve(item.id, 'accept'));
    await expect(inbox.ask(approval())).resolves.toEqual({ action: 'accept', always: false });
    expect(inbox.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});
