import { createSwitchboard, type Switchboard } from '../app/switchboard.js';
import type { LogEntry } from '../client/connection-types.js';
import { SwitchboardError } from '../core/errors.js';
import { qualifiedToolName } from '../host/catalog/tool-names.js';
import type { InboxItem, InboxOutcome } from '../host/inbox/inbox.js';
import { parseVerbArgs } from './arguments/verb-options.js';
import { type CliContext, EXIT, type ExitCode, exitCodeOf, UsageError } from './cli-context.js';
import { LineSplitter, MAX_LINE_CHARS, type SplitLine } from './jsonl/line-splitter.js';
import {
  encodeMessage,
  errorFromThrown,
  errorMessage,
  inboxMessage,
  inboxResolvedMessage,
  type JsonlMessage,
  type RequestId,
  resolvedMessage,
  resultMessage,
  serversMessage,
} from './jsonl/messages.js';
import {
  type CallRequest,
  type JsonlRequest,
  parseRequestLine,
  type ResolveRequest,
} from './jsonl/requests.js';
import { decideResolve } from './jsonl/resolve-answer.js';
import { serverViews } from './jsonl/server-view.js';

/**
 * `switchboard host --jsonl`: the host for a front-end (an editor, a chat app) that speaks
 * JSON lines — requests on stdin, answers, server lists and inbox items on stdout, nothing
 * else there. The protocol's pure parts are in ./jsonl/; docs/jsonl-protocol.md describes it.
 */
export const HOST_USAGE = `usage: switchboard host --jsonl [--session ID]
  Runs the configured servers for a front-end that speaks JSON lines: one request per line on
  stdin — {"op":"mcp_list"}, mcp_set, mcp_remove, mcp_toggle, call, resolve — and one message
  per line on stdout: answers (with your "id"), the server list whenever it changes, and inbox
  items (approvals, elicitations) to answer with "resolve". Logs go to stderr (--verbose adds
  every server's log lines). End of input closes every server. --session names the governance
  session whose "always" approvals are remembered (default "jsonl").
  The protocol: docs/jsonl-protocol.md.`;

/** How long ops still running at end of input may take to finish before they are cancelled. */
const DRAIN_MS = 5_000;
/** The JSON-lines client, as the audit names who changed the server list. */
const JSONL_ACTOR = { via: 'jsonl' } as const;

export async function hostCommand(ctx: CliContext): Promise<ExitCode> {
  const flags = parseFlags(ctx.args);
  let switchboard: Switchboard;
  try {
    switchboard = await createSwitchboard({
      projectDir: ctx.projectDir,
      projectFile: ctx.projectFile,
      homeDir: ctx.homeDir,
      dataDir: ctx.dataDir,
    });
  } catch (error) {
    // A front-end reads stdout only: the reason it never started goes there too, as a line.
    ctx.out(encodeMessage(errorMessage(errorFromThrown(error))));
    return exitCodeOf(error);
  }
  // A front-end that goes away closes stdout; writes then fail (EPIPE), and end of input follows.
  const ignore = () => undefined;
  process.stdout.on('error', ignore);
  const session = new JsonlSession(switchboard, {
    write: (line) => ctx.out(line),
    log: (line) => ctx.err(line),
    session: flags.session,
    verbose: ctx.verbose,
  });
  session.start();
  if (!ctx.quiet) ctx.err('switchboard host: JSON lines on stdin and stdout (docs/jsonl-protocol.md).');
  const ended = await readLines(ctx.stdin, (line) => session.receive(line));
  // Closing takes a moment; a repeated signal (a wrapper passing a Ctrl-C on) must not cut it short.
  const hold = () => undefined;
  process.on('SIGINT', hold);
  process.on('SIGTERM', hold);
  await session.close({ drain: ended === 'eof' });
  process.off('SIGINT', hold);
  process.off('SIGTERM', hold);
  process.stdout.off('error', ignore);
  return EXIT.ok;
}

function parseFlags(args: readonly string[]): { session: string } {
  const { values, positionals } = parseVerbArgs(args, {
    jsonl: { type: 'boolean' },
    session: { type: 'string' },
  });
  if (positionals.length > 0)
    throw new UsageError(`host takes no arguments ("${positionals[0]}"); see "switchboard host --help".`);
  if (!values.jsonl)
    throw new UsageError('host needs --jsonl, the protocol it speaks: switchboard host --jsonl');
  return { session: values.session ?? 'jsonl' };
}

/** Feeds stdin's lines to `onLine` until end of input, or until SIGINT/SIGTERM. */
function readLines(
  input: NodeJS.ReadableStream,
  onLine: (line: SplitLine) => void,
): Promise<'eof' | 'signal'> {
  const splitter = new LineSplitter();
  return new Promise((resolve) => {
    const onData = (chunk: string | Buffer) => {
      for (const line of splitter.push(String(chunk))) onLine(line);
    };
    const onEnd = () => {
      for (const line of splitter.end()) onLine(line);
      finish('eof');
    };
    const onSignal = () => finish('signal');
    const finish = (why: 'eof' | 'signal') => {
      input.off('data', onData);
      input.off('end', onEnd);
      input.off('error', onEnd);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      // A paused stdin no longer holds the process open.
      input.pause();
      resolve(why);
    };
    input.setEncoding('utf8');
    input.on('data', onData);
    input.on('end', onEnd);
    input.on('error', onEnd);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
}

interface SessionIo {
  write(line: string): void;
  log(line: string): void;
  readonly session: string;
  readonly verbose: boolean;
}

/**
 * One front-end's conversation with the host. Ops run in the order they arrive; a call only has
 * to start before the next op runs, because it may wait for a `resolve` that comes later.
 */
class JsonlSession {
  private queue: Promise<void> = Promise.resolve();
  private readonly running = new Set<Promise<void>>();
  private readonly calls = new AbortController();
  private readonly detach: (() => void)[] = [];
  private lastServers: string | undefined;
  private closed = false;

  constructor(
    private readonly switchboard: Switchboard,
    private readonly io: SessionIo,
  ) {}

  start(): void {
    const { host } = this.switchboard;
    const changed = () => this.emitServers();
    const added = (item: InboxItem) => this.send(inboxMessage(item));
    const resolved = (item: InboxItem, outcome: InboxOutcome) =>
      this.send(inboxResolvedMessage(item, outcome));
    host.on('servers', changed);
    host.on('catalog', changed);
    // Listening for new items is also what makes the Inbox ask this front-end rather than decline.
    host.inbox.on('added', added);
    host.inbox.on('resolved', resolved);
    this.detach.push(
      () => host.off('servers', changed),
      () => host.off('catalog', changed),
      () => host.inbox.off('added', added),
      () => host.inbox.off('resolved', resolved),
    );
    if (this.io.verbose) {
      const log = (entry: LogEntry) => this.io.log(`${entry.server} [${entry.source}] ${entry.text}`);
      host.on('log', log);
      this.detach.push(() => host.off('log', log));
    }
    this.emitServers(undefined, true);
  }

  receive(line: SplitLine): void {
    if (this.closed) return;
    if (line.kind === 'too_long') {
      this.send(
        errorMessage({
          code: 'LINE_TOO_LONG',
          message: `A line of ${line.length} characters is over the limit of ${MAX_LINE_CHARS}; it was dropped. Send smaller requests.`,
        }),
      );
      return;
    }
    const parsed = parseRequestLine(line.text);
    if (!parsed.ok) {
      this.send(errorMessage(parsed.error, parsed.id));
      return;
    }
    const request = parsed.request;
    this.queue = this.queue.then(() => {
      if (request.op !== 'call') return this.run(request);
      const running = this.run(request);
      this.running.add(running);
      void running.finally(() => this.running.delete(running));
    });
  }

  /** Stops reading, lets what runs finish (briefly, at end of input), then closes every server. */
  async close(options: { readonly drain: boolean }): Promise<void> {
    this.closed = true;
    await this.queue;
    // Nobody is left to answer: waiting approvals and elicitations are declined, so their calls end.
    this.switchboard.host.inbox.close();
    if (options.drain && this.running.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, DRAIN_MS);
      });
      await Promise.race([Promise.allSettled([...this.running]), timeout]);
      clearTimeout(timer);
    }
    this.calls.abort(new SwitchboardError('REQUEST_CANCELLED', 'The front-end closed its input.'));
    await Promise.allSettled([...this.running]);
    for (const off of this.detach.splice(0)) off();
    await this.switchboard.close();
  }

  /** Runs one op and writes its answer; never throws. */
  private async run(request: JsonlRequest): Promise<void> {
    let answer: JsonlMessage | undefined;
    try {
      answer = await this.answer(request);
    } catch (error) {
      answer = errorMessage(errorFromThrown(error), request.id);
    }
    // The server-list ops are answered with the list itself; every other answer is followed by it.
    if (answer === undefined) {
      this.emitServers(request.id, true);
      return;
    }
    this.send(answer);
    this.emitServers(undefined, true);
  }

  /** The op's answer line; undefined for the server-list ops, whose answer is the list. */
  private async answer(request: JsonlRequest): Promise<JsonlMessage | undefined> {
    const { host } = this.switchboard;
    switch (request.op) {
      case 'call':
        return this.call(request);
      case 'resolve':
        return this.resolve(request);
      case 'mcp_set':
        await host.register(request.server, 'jsonl', JSONL_ACTOR);
        return undefined;
      case 'mcp_remove':
        await this.remove(request.name);
        return undefined;
      case 'mcp_toggle':
        await host.setEnabled(request.name, request.enabled, JSONL_ACTOR);
        return undefined;
      case 'mcp_list':
        return undefined;
    }
  }

  private async remove(name: string): Promise<void> {
    const status = this.switchboard.host.servers().find((s) => s.name === name);
    if (!status) {
      throw new SwitchboardError(
        'NOT_FOUND',
        `No server named "${name}". Send {"op":"mcp_list"} to see the names.`,
        { details: { server: name } },
      );
    }
    const file = this.switchboard.config.sources[name];
    if (file !== undefined && status.source === file) {
      throw new SwitchboardError(
        'INVALID_ARGUMENT',
        `Server "${name}" comes from ${file}, which this protocol does not edit. Delete the entry ` +
          `there, or turn it off with {"op":"mcp_toggle","name":"${name}","enabled":false}.`,
        { details: { server: name, file } },
      );
    }
    await this.switchboard.host.unregister(name, JSONL_ACTOR);
  }

  private async call(request: CallRequest): Promise<JsonlMessage> {
    const tool =
      request.server === undefined ? request.tool : qualifiedToolName(request.server, request.tool);
    const result = await this.switchboard.host.callTool(tool, request.arguments ?? {}, {
      session: this.io.session,
      signal: this.calls.signal,
    });
    return resultMessage(tool, { ...result.raw, isError: result.isError }, request.id);
  }

  private resolve(request: ResolveRequest): JsonlMessage {
    const { inbox } = this.switchboard.host;
    const item = inbox.get(request.itemId);
    if (!item) {
      throw new SwitchboardError(
        'NOT_FOUND',
        `No inbox item "${request.itemId}" is waiting: it was answered, expired or never existed. ` +
          'Items to answer arrive as {"type":"inbox"} lines.',
        { details: { id: request.itemId } },
      );
    }
    const outcome = decideResolve(item, request);
    if (!outcome.ok) return errorMessage(outcome.error, request.id);
    const { action, content, always } = outcome.decision;
    inbox.resolveOrThrow(item.id, action, content, { always });
    return resolvedMessage(item.id, action, request.id);
  }

  private emitServers(id?: RequestId, force = false): void {
    const { host } = this.switchboard;
    const servers = serverViews(host.servers(), host.catalog().tools);
    const key = JSON.stringify(servers);
    if (!force && key === this.lastServers) return;
    this.lastServers = key;
    this.send(serversMessage(servers, id));
  }

  private send(message: JsonlMessage): void {
    this.io.write(encodeMessage(message));
  }
}
