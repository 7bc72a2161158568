import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import type { CassetteLine } from './cassette.js';

/**
 * Which recorded answer a replayed request gets. The cassette is cut into exchanges: each
 * client request with the server's messages that followed it (notifications, its own requests)
 * up to its response. A request arriving at replay is matched to a recorded one by method and
 * parameters — ids never count (they are renumbered), and per `MatchOptions` `_meta` and named
 * fields may not count either; of several matches the next unused one is taken, in recorded
 * order, and once all were used the last one again, so a replay is deterministic. What goes
 * back is rewritten to the live request: its id, and its progress token in the recorded
 * progress notifications. Pure.
 */

export interface MatchOptions {
  /**
   * `exact`: the parameters as recorded, `_meta` included. `loose` (default): `_meta` does not
   * count (2026-07-28 requests carry the client's identity there; progress tokens vary), nor
   * do the parameters of `initialize`, `server/discover` and `ping`.
   */
  readonly mode?: 'exact' | 'loose';
  /** Parameter paths that do not count (`arguments.requestId`), dot-separated. */
  readonly ignore?: readonly string[];
}

/** What replay sends for one request: the server's messages in order, its response last. */
export interface ReplayAnswer {
  readonly messages: readonly { readonly message: JSONRPCMessage; readonly afterMs: number }[];
}

/** A request no recorded one matches: the JSON-RPC error to answer with. */
export interface ReplayMiss {
  readonly code: number;
  readonly message: string;
}

interface Exchange {
  readonly method: string;
  readonly params: unknown;
  readonly at: number;
  readonly following: readonly CassetteLine[];
}

type RequestMessage = { id: string | number; method: string; params?: Record<string, unknown> };

const METHOD_ONLY = new Set(['initialize', 'server/discover', 'ping']);

export class ReplayMatcher {
  private readonly exchanges: readonly Exchange[];
  private readonly used = new Map<Exchange, number>();

  constructor(
    lines: readonly CassetteLine[],
    private readonly options: MatchOptions = {},
  ) {
    this.exchanges = exchangesOf(lines);
  }

  /** The answer to `request`, or why none was recorded. */
  answer(request: RequestMessage): ReplayAnswer | ReplayMiss {
    const same = this.exchanges.filter((e) => e.method === request.method);
    if (same.length === 0) {
      const recorded = [...new Set(this.exchanges.map((e) => e.method))].join(', ') || 'none';
      return {
        code: -32601,
        message: `No ${request.method} was recorded (recorded: ${recorded}). Record a session that makes it.`,
      };
    }
    const key = this.keyOf(request.method, request.params);
    const matching = same.filter((e) => this.keyOf(e.method, e.params) === key);
    if (matching.length === 0) return { code: -32602, message: this.missMessage(request, same) };
    const chosen = matching.find((e) => !this.used.has(e)) ?? matching[matching.length - 1]!;
    this.used.set(chosen, (this.used.get(chosen) ?? 0) + 1);
    return { messages: rewrite(chosen, request) };
  }

  private keyOf(method: string, params: unknown): string {
    if (this.options.mode !== 'exact' && METHOD_ONLY.has(method)) return method;
    const kept = withoutPaths(
      params,
      this.options.mode === 'exact' ? [] : ['_meta'],
      this.options.ignore ?? [],
    );
    return `${method}\u0000${canonical(kept)}`;
  }

  private missMessage(request: RequestMessage, same: readonly Exchange[]): string {
    const ignore = [...(this.options.mode === 'exact' ? [] : ['_meta']), ...(this.options.ignore ?? [])];
    const live = withoutPaths(request.params, ignore, []);
    const diffs = same.map((e) => firstDifference(withoutPaths(e.params, ignore, []), live, 'params'));
    const nearest = diffs.sort((a, b) => b.depth - a.depth)[0]!;
    return (
      `No recorded ${request.method} matches this one (${same.length} recorded): ${nearest.text}. ` +
      `Record it, or replay with --ignore ${nearest.path.replace(/^params\.?/, '') || '<field>'} if it may differ.`
    );
  }
}

/** The exchanges of a recording: each client request and what the server sent until its response. */
function exchangesOf(lines: readonly CassetteLine[]): Exchange[] {
  const open = new Map<string, { request: RequestMessage; at: number; following: CassetteLine[] }>();
  const done: Exchange[] = [];
  for (const line of lines) {
    const m = line.message as Partial<RequestMessage> & { result?: unknown; error?: unknown };
    if (line.from === 'client') {
      if (typeof m.method === 'string' && m.id !== undefined) {
        open.set(String(m.id), { request: m as RequestMessage, at: line.at, following: [] });
      }
      continue;
    }
    const isResponse = m.method === undefined && m.id !== undefined;
    const owner = isResponse ? open.get(String(m.id)) : lastOpen(open);
    if (!owner) continue;
    owner.following.push(line);
    if (isResponse) {
      open.delete(String(m.id));
      const { request } = owner;
      done.push({ method: request.method, params: request.params, at: owner.at, following: owner.following });
    }
  }
  // Recorded order of the requests, not of their responses.
  return done.sort((a, b) => a.at - b.at);
}

function lastOpen<V>(open: Map<string, V>): V | undefined {
  let last: V | undefined;
  for (const v of open.values()) last = v;
  return last;
}

/** The recorded messages, with the live request's id and progress token. */
function rewrite(exchange: Exchange, live: RequestMessage): ReplayAnswer['messages'] {
  const recordedToken = (exchange.params as { _meta?: { progressToken?: unknown } } | undefined)?._meta
    ?.progressToken;
  const liveToken = live.params?._meta && (live.params._meta as { progressToken?: unknown }).progressToken;
  return exchange.following
    .map((line, i) => {
      const m = line.message as Record<string, unknown>;
      const last = i === exchange.following.length - 1;
      let message: Record<string, unknown> = m;
      if (last) message = { ...m, id: live.id };
      else if (m.method === 'notifications/progress' && recordedToken !== undefined) {
        const params = m.params as { progressToken?: unknown } | undefined;
        if (params?.progressToken === recordedToken) {
          // A live request without a token asked for no progress: none is sent.
          if (liveToken === undefined) return undefined;
          message = { ...m, params: { ...params, progressToken: liveToken } };
        }
      }
      return { message: message as JSONRPCMessage, afterMs: Math.max(0, line.at - exchange.at) };
    })
    .filter((x): x is { message: JSONRPCMessage; afterMs: number } => x !== undefined);
}

/** `value` without the top-level fields `drop` and the dot paths `paths`. */
function withoutPaths(value: unknown, drop: readonly string[], paths: readonly string[]): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const copy = structuredClone(value) as Record<string, unknown>;
  for (const field of drop) delete copy[field];
  for (const path of paths) {
    const parts = path.split('.');
    let at: unknown = copy;
    for (const part of parts.slice(0, -1)) at = (at as Record<string, unknown> | undefined)?.[part];
    if (typeof at === 'object' && at !== null)
      delete (at as Record<string, unknown>)[parts[parts.length - 1]!];
  }
  return copy;
}

/** JSON with object keys sorted: equal values, equal text. */
function canonical(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

/** Where `recorded` and `live` first differ, in words, and how deep (the nearest recording differs deepest). */
function firstDifference(
  recorded: unknown,
  live: unknown,
  path: string,
  depth = 0,
): { text: string; path: string; depth: number } {
  const bothObjects =
    typeof recorded === 'object' &&
    recorded !== null &&
    typeof live === 'object' &&
    live !== null &&
    Array.isArray(recorded) === Array.isArray(live);
  if (bothObjects) {
    const r = recorded as Record<string, unknown>;
    const l = live as Record<string, unknown>;
    for (const key of new Set([...Object.keys(r), ...Object.keys(l)])) {
      if (canonical(r[key]) !== canonical(l[key]))
        return firstDifference(r[key], l[key], `${path}.${key}`, depth + 1);
    }
  }
  const show = (v: unknown) => (v === undefined ? 'absent' : short(JSON.stringify(v)));
  return { text: `${path} is ${show(live)}, recorded ${show(recorded)}`, path, depth };
}

function short(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}
