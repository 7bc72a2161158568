import { ElicitRequestParamsSchema, ElicitResultSchema } from '@modelcontextprotocol/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ElicitationParams } from '../../../src/client/server-requests.js';
import { Inbox, type InboxItem } from '../../../src/host/inbox/inbox.js';
import { inboxApprovalAsker, inboxElicitationHandler } from '../../../src/host/inbox/inbox-adapters.js';

/** Params as the SDK hands them to the handler: parsed by its own schema. */
const params = (raw: unknown): ElicitationParams => ElicitRequestParamsSchema.parse(raw) as ElicitationParams;

const formParams = params({
  mode: 'form',
  message: 'Which repository?',
  requestedSchema: {
    type: 'object',
    properties: {
      repo: { type: 'string', title: 'Repository' },
      api_token: { type: 'string', description: 'A token with repo scope' },
      private: { type: 'boolean', default: false },
    },
    required: ['repo'],
  },
});

const urlParams = params({
  mode: 'url',
  message: 'Sign in to continue',
  url: 'https://auth.example.com/start?state=xyz',
  elicitationId: 'elic-7',
});

function nextItem(inbox: Inbox): Promise<InboxItem> {
  return new Promise((resolve) => inbox.once('added', resolve));
}

describe('inboxElicitationHandler', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('turns a form elicitation into an item and the accepted content into the result', async () => {
    const inbox = new Inbox();
    const handler = inboxElicitationHandler(inbox);
    const added = nextItem(inbox);
    const result = handler(formParams, { server: 'gh', signal: new AbortController().signal });
    const item = await added;
    expect(item).toMatchObject({
      kind: 'elicitation',
      server: 'gh',
      mode: 'form',
      preview: 'Which repository?',
    });
    expect(item.secretFields).toEqual(['api_token']);
    expect(Object.keys(item.requestedSchema?.properties ?? {})).toEqual(['repo', 'api_token', 'private']);
    inbox.resolve(item.id, 'accept', { repo: 'o/r', api_token: 'tkn', private: true });
    const answer = await result;
    expect(answer).toEqual({ action: 'accept', content: { repo: 'o/r', api_token: 'tkn', private: true } });
    expect(ElicitResultSchema.parse(answer)).toMatchObject({ action: 'accept' });
  });

  it('turns a URL elicitation into an item with the URL; accept carries no content', async () => {
    const inbox = new Inbox();
    const handler = inboxElicitationHandler(inbox);
    const added = nextItem(inbox);
    const result = handler(urlParams, { server: 'auth', signal: new AbortController().signal });
    const item = await added;
    expect(item).toMatchObject({
      mode: 'url',
      server: 'auth',
      url: 'https://auth.example.com/start?state=xyz',
      elicitationId: 'elic-7',
      preview: 'Sign in to continue',
    });
    inbox.resolve(item.id, 'accept');
    await expect(result).resolves.toEqual({ action: 'accept' });
  });

  it('maps decline, cancel and the timeout', async () => {
    const inbox = new Inbox();
    const handler = inboxElicitationHandler(inbox, { timeoutMs: 1_000 });
    const ctx = { server: 'gh', signal: new AbortController().signal };
    for (const action of ['decline', 'cancel'] as const) {
      const added = nextItem(inbox);
      const result = handler(formParams, ctx);
      inbox.resolve((await added).id, action);
      await expect(result).resolves.toEqual({ action });
    }
    const added = nextItem(inbox);
    const late = handler(formParams, ctx);
    expect((await added).deadline.getTime() - Date.now()).toBe(1_000);
    vi.advanceTimersByTime(1_000);
    await expect(late).resolves.toEqual({ action: 'decline' });
  });

  it('cancels and removes the item when the server gives up (ctx.signal)', async () => {
    const inbox = new Inbox();
    const handler = inboxElicitationHandler(inbox);
    const controller = new AbortController();
    const added = nextItem(inbox);
    const result = handler(formParams, { server: 'gh', signal: controller.signal });
    await added;
    controller.abort();
    await expect(result).resolves.toEqual({ action: 'cancel' });
    expect(inbox.size).toBe(0);
  });
});

describe('inboxApprovalAsker', () => {
  const request = {
    server: 'fs',
    tool: 'write_file',
    session: 'default',
    args: { path: '/tmp/x', content: 'hello', password: 'pw' },
    inputSchema: { type: 'object' },
    reason: 'auto-edit mode asks before a non-read-only tool',
  };

  it('asks through the Inbox and maps the answers', async () => {
    const inbox = new Inbox();
    const ask = inboxApprovalAsker(inbox);
    const cases = [
      ['accept', { always: true }, { approved: true, always: true }],
      ['accept', {}, { approved: true, always: false }],
      ['decline', {}, { approved: false, reason: 'declined by a person' }],
      ['cancel', {}, { approved: false, reason: 'cancelled by a person' }],
    ] as const;
    for (const [action, options, expected] of cases) {
      const added = nextItem(inbox);
      const answer = ask(request, {});
      const item = await added;
      expect(item).toMatchObject({ kind: 'approval', server: 'fs', tool: 'write_file', session: 'default' });
      expect(item.preview).not.toContain('"pw"');
      inbox.resolve(item.id, action, undefined, options);
      await expect(answer).resolves.toEqual(expected);
    }
  });

  it('says no, with the reason, on timeout, abort, close and a full inbox', async () => {
    vi.useFakeTimers();
    try {
      const inbox = new Inbox({ maxPending: 1 });
      const ask = inboxApprovalAsker(inbox, { timeoutMs: 50 });
      const timedOut = ask(request, {});
      await expect(ask(request, {})).resolves.toEqual({ approved: false, reason: 'the inbox is full' });
      vi.advanceTimersByTime(50);
      await expect(timedOut).resolves.toEqual({ approved: false, reason: 'no answer before the deadline' });
      const controller = new AbortController();
      const aborted = ask(request, { signal: controller.signal });
      controller.abort();
      await expect(aborted).resolves.toEqual({
        approved: false,
        reason: 'the call was aborted while waiting',
      });
      const closing = ask(request, {});
      inbox.close();
      await expect(closing).resolves.toEqual({ approved: false, reason: 'the inbox closed' });
    } finally {
      vi.useRealTimers();
    }
  });
});
