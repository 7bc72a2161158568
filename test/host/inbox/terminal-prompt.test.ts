import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type ElicitationRequest, Inbox, type InboxAnswer } from '../../../src/host/inbox/inbox.js';
import { attachTerminalPrompt } from '../../../src/host/inbox/terminal-prompt.js';
import { MASKED } from '../../../src/policy/masking.js';

/** A prompt on PassThrough streams: waits for text on the output, types lines on the input. */
function terminal(inbox: Inbox, options: { tty?: boolean; mask?: boolean } = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  if (options.tty) Object.assign(input, { isTTY: true, setRawMode: () => input });
  let text = '';
  let cursor = 0;
  const waiters = new Set<() => void>();
  output.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const check of [...waiters]) check();
  });
  const detach = attachTerminalPrompt(inbox, {
    input,
    output,
    ...(options.mask !== undefined && { mask: options.mask }),
  });
  return {
    input,
    detach,
    get text() {
      return text;
    },
    /** Resolves once `needle` appears after everything already waited for. */
    next(needle: string): Promise<void> {
      return new Promise((resolve) => {
        const check = () => {
          const at = text.indexOf(needle, cursor);
          if (at < 0) return;
          cursor = at + needle.length;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      });
    },
    type(line: string): void {
      input.write(`${line}${options.tty ? '\r' : '\n'}`);
    },
  };
}

const APPROVAL_PROMPT = '[y]es / [a]lways / [N]o: ';
const CONSENT_PROMPT = 'Answer it? [y]es / [n]o / [c]ancel: ';

const approval = (tool = 'create_issue') =>
  ({
    kind: 'approval',
    server: 'gh',
    tool,
    args: { title: 'Bug', token: 'tok-secret-123' },
    reason: 'read-only mode asks before every MCP call',
  }) as const;

const connectForm: ElicitationRequest = {
  kind: 'elicitation',
  server: 'db',
  message: 'Connect to the database',
  requestedSchema: {
    type: 'object',
    properties: {
      user: { type: 'string', title: 'User name', description: 'Your login' },
      password: { type: 'string', title: 'Password' },
      port: { type: 'integer', title: 'Port', default: 5432, minimum: 1 },
      mode: {
        type: 'string',
        title: 'Mode',
        oneOf: [
          { const: 'ro', title: 'Read only' },
          { const: 'rw', title: 'Read/write' },
        ],
      },
      remember: { type: 'boolean', title: 'Remember me' },
      tables: { type: 'array', title: 'Tables', items: { type: 'string', enum: ['a', 'b', 'c'] } },
      note: { type: 'string', title: 'Note' },
    },
    required: ['user', 'password', 'mode'],
  },
};

const detachers: (() => void)[] = [];
afterEach(() => {
  for (const detach of detachers.splice(0)) detach();
  vi.useRealTimers();
});

function attach(inbox: Inbox, options: { tty?: boolean; mask?: boolean } = {}) {
  const t = terminal(inbox, options);
  detachers.push(t.detach);
  return t;
}

describe('attachTerminalPrompt', () => {
  it('asks to allow a call, showing the reason and masked arguments', async () => {
    const inbox = new Inbox();
    const t = attach(inbox);
    const answer = inbox.ask(approval());
    await t.next('Allow gh.create_issue?');
    await t.next('reason: read-only mode asks before every MCP call');
    await t.next(`args:   {"title":"Bug","token":"${MASKED}"}`);
    await t.next(APPROVAL_PROMPT);
    t.type('a');
    await expect(answer).resolves.toEqual({ action: 'accept', always: true });
    expect(t.text).not.toContain('tok-secret-123');
  });

  it('asks again on an unknown answer; Enter alone declines', async () => {
    const inbox = new Inbox();
    const t = attach(inbox);
    const first = inbox.ask(approval());
    await t.next(APPROVAL_PROMPT);
    t.type('maybe');
    await t.next('Answer one of: y, yes, a, always, n, no.');
    await t.next(APPROVAL_PROMPT);
    t.type('YES');
    await expect(first).resolves.toEqual({ action: 'accept', always: false });
    const second = inbox.ask(approval());
    await t.next(APPROVAL_PROMPT);
    t.type('');
    await expect(second).resolves.toEqual({ action: 'decline', reason: 'user' });
  });

  it('presents items one at a time, those pending before it attached first', async () => {
    const inbox = new Inbox();
    const early = inbox.ask(approval('early'));
    const t = attach(inbox);
    const later = inbox.ask(approval('later'));
    await t.next('Allow gh.early?');
    await t.next(APPROVAL_PROMPT);
    expect(t.text).not.toContain('gh.later');
    t.type('n');
    await t.next('Allow gh.later?');
    await t.next(APPROVAL_PROMPT);
    t.type('y');
    await expect(Promise.all([early, later])).resolves.toEqual([
      { action: 'decline', reason: 'user' },
      { action: 'accept', always: false },
    ]);
  });

  it('asks each form field, converts the answers and never writes a secret', async () => {
    const inbox = new Inbox();
    const t = attach(inbox);
    const answer = inbox.ask(connectForm);
    await t.next('db asks: Connect to the database');
    await t.next(CONSENT_PROMPT);
    t.type('y');
    await t.next('User name — Your login');
    await t.next('User name: ');
    t.type('');
    await t.next('User name is required.');
    await t.next('User name: ');
    t.type('alice');
    await t.next('Password [hidden]: ');
    t.type('  s3cret pass  ');
    await t.next('Port [default: 5432, optional]: ');
    t.type('many');
    await t.next('Port must be an integer.');
    await t.next('Port [default: 5432, optional]: ');
    t.type('0');
    await t.next('Port must be at least 1.');
    await t.next('Port [default: 5432, optional]: ');
    t.type('');
    await t.next('1) Read only  2) Read/write');
    await t.next('Mode: ');
    t.type('2');
    await t.next('Remember me [y/n, optional]: ');
    t.type('n');
    await t.next('1) a  2) b  3) c');
    await t.next('Tables [optional]: ');
    t.type('1, c');
    await t.next('Note [optional]: ');
    t.type('');
    const result = await answer;
    expect(result).toEqual({
      action: 'accept',
      always: false,
      content: {
        user: 'alice',
        password: '  s3cret pass  ',
        port: 5432,
        mode: 'rw',
        remember: false,
        tables: ['a', 'c'],
      },
    });
    expect(t.text).not.toContain('s3cret');
  });

  it('reads a secret without echo on a TTY, while echoing other fields', async () => {
    const inbox = new Inbox();
    const t = attach(inbox, { tty: true });
    const answer = inbox.ask({
      kind: 'elicitation',
      server: 'svc',
      message: 'Log in',
      requestedSchema: {
        type: 'object',
        properties: { login: { type: 'string' }, api_token: { type: 'string' } },
        required: ['login', 'api_token'],
      },
    });
    await t.next(CONSENT_PROMPT);
    t.type('y');
    await t.next('login: ');
    t.type('visible-login');
    await t.next('visible-login');
    await t.next('api_token [hidden]: ');
    t.type('tty-secret-value');
    await expect(answer).resolves.toMatchObject({
      action: 'accept',
      content: { login: 'visible-login', api_token: 'tty-secret-value' },
    });
    expect(t.text).not.toContain('tty-secret');
  });

  it('echoes a secret on a TTY when masking is turned off', async () => {
    const inbox = new Inbox();
    const t = attach(inbox, { tty: true, mask: false });
    const answer = inbox.ask({
      kind: 'elicitation',
      server: 'svc',
      message: 'Log in',
      requestedSchema: {
        type: 'object',
        properties: { password: { type: 'string' } },
        required: ['password'],
      },
    });
    await t.next(CONSENT_PROMPT);
    t.type('y');
    await t.next('password: ');
    t.type('shown-on-purpose');
    await t.next('shown-on-purpose');
    await expect(answer).resolves.toMatchObject({ action: 'accept' });
  });

  it('declines or cancels a form before any field', async () => {
    const inbox = new Inbox();
    const t = attach(inbox);
    for (const [typed, action] of [
      ['n', 'decline'],
      ['c', 'cancel'],
    ] as const) {
      const answer = inbox.ask(connectForm);
      await t.next(CONSENT_PROMPT);
      t.type(typed);
      await expect(answer).resolves.toEqual({ action, reason: 'user' });
    }
    expect(t.text).not.toContain('User name');
  });

  it('shows a URL elicitation and accepts it on consent', async () => {
    const inbox = new Inbox();
    const t = attach(inbox);
    const answer = inbox.ask({
      kind: 'elicitation',
      server: 'pay',
      message: 'Confirm the payment',
      url: 'https://pay.example.com/c/1',
      elicitationId: 'e1',
    });
    await t.next('pay asks you to open a page: Confirm the payment');
    await t.next('url: https://pay.example.com/c/1');
    await t.next('Open it? [y]es / [n]o / [c]ancel: ');
    t.type('y');
    await expect(answer).resolves.toEqual({ action: 'accept', always: false });
    await t.next('Open https://pay.example.com/c/1 in your browser.');
  });

  it('moves on when the item on screen is answered elsewhere', async () => {
    const inbox = new Inbox();
    const t = attach(inbox);
    const first = inbox.ask(approval('first'));
    const second = inbox.ask(approval('second'));
    await t.next(APPROVAL_PROMPT);
    const [item] = inbox.list();
    inbox.resolve(item!.id, 'accept');
    await t.next('(answered elsewhere)');
    await t.next('Allow gh.second?');
    await t.next(APPROVAL_PROMPT);
    t.type('n');
    await expect(first).resolves.toEqual({ action: 'accept', always: false });
    await expect(second).resolves.toEqual({ action: 'decline', reason: 'user' });
  });

  it('moves on when the item on screen expires', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const inbox = new Inbox({ timeoutMs: 60_000 });
    const t = attach(inbox);
    const answer = inbox.ask(connectForm);
    await t.next(CONSENT_PROMPT);
    t.type('y');
    await t.next('User name: ');
    vi.advanceTimersByTime(60_000);
    await expect(answer).resolves.toEqual({ action: 'decline', reason: 'timeout' });
    await t.next('(no answer in time: declined)');
    const next = inbox.ask(approval());
    await t.next('Allow gh.create_issue? (declined in 1 min without an answer)');
    await t.next(APPROVAL_PROMPT);
    t.type('y');
    await expect(next).resolves.toEqual({ action: 'accept', always: false });
  });

  it('discards lines typed while nothing is asked', async () => {
    const inbox = new Inbox();
    const t = attach(inbox);
    // readline's own data listener runs first, so once ours fires the line has been read.
    const consumed = new Promise<void>((resolve) => t.input.once('data', () => resolve()));
    t.type('y');
    await consumed;
    const answer = inbox.ask(approval());
    await t.next(APPROVAL_PROMPT);
    expect(inbox.size).toBe(1);
    t.type('n');
    await expect(answer).resolves.toEqual({ action: 'decline', reason: 'user' });
  });

  it('cancels the item on screen when the input ends, and leaves the rest waiting', async () => {
    const inbox = new Inbox();
    const t = attach(inbox);
    const onScreen = inbox.ask(approval('shown'));
    const waiting = inbox.ask(approval('queued'));
    await t.next(APPROVAL_PROMPT);
    t.input.end();
    await expect(onScreen).resolves.toEqual({ action: 'cancel', reason: 'user' });
    expect(inbox.list().map((i) => i.tool)).toEqual(['queued']);
    inbox.close();
    await expect(waiting).resolves.toEqual({ action: 'decline', reason: 'closed' });
  });

  it('cancels the item on screen on Ctrl-C at a TTY', async () => {
    const inbox = new Inbox();
    const t = attach(inbox, { tty: true });
    const answer = inbox.ask(approval());
    await t.next(APPROVAL_PROMPT);
    t.input.write('\x03');
    await expect(answer).resolves.toEqual({ action: 'cancel', reason: 'user' });
    const after = inbox.ask(approval('after'));
    expect(inbox.size).toBe(1);
    inbox.close();
    await expect(after).resolves.toEqual({ action: 'decline', reason: 'closed' });
  });

  it('stops presenting once detached, leaving items pending', async () => {
    const inbox = new Inbox();
    const t = attach(inbox);
    const shown = inbox.ask(approval('shown'));
    await t.next(APPROVAL_PROMPT);
    t.detach();
    const after = inbox.ask(approval('after'));
    expect(inbox.list().map((i) => i.tool)).toEqual(['shown', 'after']);
    expect(t.text).not.toContain('gh.after');
    inbox.close();
    const answers: InboxAnswer[] = await Promise.all([shown, after]);
    expect(answers.every((a) => a.action === 'decline')).toBe(true);
  });
});
