import { createHash } from 'node:crypto';
import { chmod, mkdir, unlink } from 'node:fs/promises';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describeError, isSwitchboardError, SwitchboardError } from '../core/errors.js';
import { LocalCredential } from '../gateway/http/auth/local-token.js';
import type { Inbox, InboxAction } from '../host/inbox/inbox.js';
import type { InboxItemJson } from '../host/inbox/inbox-item-json.js';

/**
 * The Inbox of a running Switchboard process (the gateway), reachable from another process on
 * the same machine: a small HTTP endpoint on a Unix socket in the data dir (a named pipe on
 * Windows), only for the user who owns it (0600), and answering only requests that carry the
 * data dir's local token (`Authorization: Bearer`, local-token.ts) — the same credential the
 * API's approvals need, so a socket reachable by someone else (a named pipe's default access,
 * a moment before the chmod) still answers no one else. `switchboard inbox` lists and answers
 * through it. While it is open it counts as a front-end: approvals wait for an answer (until
 * their deadline) instead of being declined at once for want of one.
 *
 *   GET  /items        → { items: InboxItem[] }
 *   POST /items/<id>   { action: "accept" | "decline", always?, content? } → { id, action, always }
 */

/** An inbox item as it travels: dates as ISO-8601 text. */
export type { InboxItemJson };

/** What `answerInboxItem` sends. */
export interface InboxAnswerRequest {
  readonly action: Extract<InboxAction, 'accept' | 'decline'>;
  readonly always?: boolean;
  readonly content?: Readonly<Record<string, unknown>>;
}

export interface InboxEndpoint {
  readonly path: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024;
const CLIENT_TIMEOUT_MS = 10_000;

/**
 * Where the endpoint of `dataDir` listens: `inbox.sock` in it, or — when that path is too long
 * for a socket address (about 100 bytes) — a file in the temp dir named after it.
 */
export function inboxSocketPath(dataDir: string, platform: NodeJS.Platform = process.platform): string {
  const hash = createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16);
  if (platform === 'win32') return `\\\\.\\pipe\\switchboard-inbox-${hash}`;
  const inDataDir = join(dataDir, 'inbox.sock');
  return Buffer.byteLength(inDataDir) < 100 ? inDataDir : join(tmpdir(), `switchboard-inbox-${hash}.sock`);
}

/** Opens the endpoint of `inbox` for `dataDir`. A socket left by a process that died is replaced. */
export async function openInboxEndpoint(
  inbox: Inbox,
  options: { readonly dataDir: string; readonly token: string },
): Promise<InboxEndpoint> {
  const path = inboxSocketPath(options.dataDir);
  const credential = new LocalCredential({ value: options.token });
  const server = createServer((req, res) => {
    if (!authorized(req, credential)) {
      send(
        res,
        401,
        errorBody(
          'AUTH_FAILED',
          `The inbox answers only requests with the local token of ${options.dataDir}. Run "switchboard inbox" as the user who started the gateway, with the same --data-dir.`,
        ),
      );
      return;
    }
    handle(inbox, req, res).catch((error: unknown) =>
      send(res, 500, errorBody('ERROR', describeError(error))),
    );
  });
  if (process.platform !== 'win32') await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  try {
    await listen(server, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || (await answers(path))) {
      throw new SwitchboardError(
        'INVALID_ARGUMENT',
        `Another Switchboard process already serves the inbox at ${path}. Stop it, or give this one another --data-dir.`,
        { cause: error, details: { path } },
      );
    }
    await unlink(path);
    await listen(server, path);
  }
  if (process.platform !== 'win32') await chmod(path, 0o600);
  const frontEnd = () => undefined;
  inbox.on('added', frontEnd);
  return {
    path,
    close: async () => {
      inbox.off('added', frontEnd);
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

async function handle(inbox: Inbox, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://inbox');
  if (req.method === 'GET' && url.pathname === '/items') {
    send(res, 200, { items: inbox.list() });
    return;
  }
  const id = /^\/items\/([^/]+)$/.exec(url.pathname)?.[1];
  if (req.method !== 'POST' || id === undefined) {
    send(res, 404, errorBody('NOT_FOUND', 'Use GET /items or POST /items/<id>.'));
    return;
  }
  const body = await readBody(req);
  if (body === undefined) {
    send(res, 413, errorBody('INVALID_ARGUMENT', `The answer is larger than ${MAX_BODY_BYTES} bytes.`));
    return;
  }
  let answer: InboxAnswerRequest;
  try {
    answer = JSON.parse(body) as InboxAnswerRequest;
  } catch {
    send(res, 400, errorBody('INVALID_ARGUMENT', 'The answer is not JSON.'));
    return;
  }
  try {
    const itemId = decodeURIComponent(id);
    inbox.resolveOrThrow(itemId, answer.action, answer.content, { always: answer.always === true });
    send(res, 200, { id: itemId, action: answer.action, always: answer.always === true });
  } catch (error) {
    if (!isSwitchboardError(error)) throw error;
    const status = error.code === 'NOT_FOUND' ? 404 : error.code === 'ALREADY_ANSWERED' ? 409 : 400;
    send(res, status, errorBody(error.code, error.message));
  }
}

/** Whether `req` carries the local token. */
function authorized(req: IncomingMessage, credential: LocalCredential): boolean {
  const match = /^Bearer +(\S+)$/i.exec(req.headers.authorization ?? '');
  return match !== null && credential.matches(match[1]!);
}

/** Where an inbox is, for the CLI: its socket and the local token it answers to. */
export interface InboxAddress {
  readonly path: string;
  readonly token: string;
}

/** The items waiting in the inbox at `at`. */
export async function listInboxItems(at: InboxAddress): Promise<InboxItemJson[]> {
  const body = (await call(at, 'GET', '/items')) as { items: InboxItemJson[] };
  return body.items;
}

/** Answers one item; NOT_FOUND when it no longer waits, INVALID_ARGUMENT when the answer does not fit it. */
export async function answerInboxItem(
  at: InboxAddress,
  id: string,
  answer: InboxAnswerRequest,
): Promise<void> {
  await call(at, 'POST', `/items/${encodeURIComponent(id)}`, answer);
}

function call(at: InboxAddress, method: 'GET' | 'POST', route: string, payload?: unknown): Promise<unknown> {
  const { path } = at;
  return new Promise((done, fail) => {
    const headers = { authorization: `Bearer ${at.token}` };
    const req = request(
      { socketPath: path, method, path: route, headers, timeout: CLIENT_TIMEOUT_MS },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          let body: { error?: { code: string; message: string } };
          try {
            body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            fail(
              new SwitchboardError(
                'UPSTREAM_ERROR',
                `The inbox at ${path} answered with something that is not JSON.`,
              ),
            );
            return;
          }
          if (body.error)
            fail(new SwitchboardError(body.error.code as SwitchboardError['code'], body.error.message));
          else done(body);
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', (error: NodeJS.ErrnoException) => fail(notServing(path, error)));
    req.end(payload === undefined ? undefined : JSON.stringify(payload));
  });
}

function notServing(path: string, error: NodeJS.ErrnoException): SwitchboardError {
  const absent = error.code === 'ENOENT' || error.code === 'ECONNREFUSED';
  return new SwitchboardError(
    'NOT_CONNECTED',
    absent
      ? `No running Switchboard process serves an inbox at ${path}. Approvals wait in the process that ` +
          'asked for them: start the gateway with the same --data-dir, then try again.'
      : `The inbox at ${path} could not be reached: ${describeError(error)}.`,
    { cause: error, details: { path } },
  );
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(path, () => {
      server.off('error', fail);
      done();
    });
  });
}

/** Whether a process answers on the socket (else it is a leftover of one that died). */
function answers(path: string): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function errorBody(code: string, message: string): { error: { code: string; message: string } } {
  return { error: { code, message } };
}
