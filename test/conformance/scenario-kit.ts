/**
 * What every scenario handler of the conformance client shares: the context it gets from the
 * suite, failures, and a Connection opened the way a user's would be (see everything-client.ts).
 */
import {
  Connection,
  type ConnectionOptions,
  type ElicitationHandler,
  type LogEntry,
  type SamplingHandler,
  type ToolResult,
} from '../../src/client/index.js';
import { normalizeServerEntry } from '../../src/core/index.js';

export const PROGRAM = 'everything-client';
const MODERN = '2026-07-28';

/** Everything a scenario handler gets from the environment. */
export interface ScenarioContext {
  readonly scenario: string;
  readonly url: string;
  /** The wire the scenario's server speaks (suite 0.2.x), e.g. "2025-11-25" or "2026-07-28". */
  readonly wire: string | undefined;
  /** `MCP_CONFORMANCE_CONTEXT`, parsed. */
  readonly context: Record<string, unknown> | undefined;
}

export type Handler = (ctx: ScenarioContext) => Promise<void>;

/** A scenario that is deliberately not handled yet; exits 1 without a marker. */
export class NotImplementedError extends Error {}

export class ScenarioFailure extends Error {}

export function fail(message: string): never {
  throw new ScenarioFailure(message);
}

// ---- Connection helpers --------------------------------------------------------------------

export interface OpenOptions {
  readonly elicitation?: ElicitationHandler;
  readonly sampling?: SamplingHandler;
  /** The entry's `auth` (raw, as a person writes it); its `${VAR}`s come from `env`. */
  readonly auth?: Record<string, unknown>;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly credentials?: ConnectionOptions['credentials'];
  readonly onAuthorizationUrl?: ConnectionOptions['onAuthorizationUrl'];
  /**
   * Accept whichever era `auto` lands on. For the scenarios whose test server speaks both
   * (the Skills extension's answer `server/discover` with 2026-07-28 and `initialize` with
   * the version asked), although the suite names one wire for them.
   */
  readonly eitherEra?: boolean;
}

/**
 * The protocol mode: `auto`, what a user gets by default (it asks `server/discover` and falls
 * back to `initialize`), for every scenario; `expectedEra` then checks that it landed on the
 * wire the scenario's server speaks. `SWITCHBOARD_CONFORMANCE_PROTOCOL` overrides the mode
 * (e.g. `modern`, `legacy`, `2026-07-28`) to exercise the pinned paths.
 */
function protocolFor(): string {
  return process.env.SWITCHBOARD_CONFORMANCE_PROTOCOL || 'auto';
}

/** The era the scenario's server speaks: 2026-07-28 is modern, any other known wire legacy. */
function expectedEra(ctx: ScenarioContext): 'modern' | 'legacy' | undefined {
  if (ctx.wire === undefined) return undefined; // suite 0.1.x: 2025 wires only, but not said
  return ctx.wire >= MODERN ? 'modern' : 'legacy';
}

export function logLine(entry: LogEntry): void {
  process.stderr.write(`[${PROGRAM}] [${entry.source}] ${entry.level}: ${entry.text}\n`);
}

/**
 * The handshake and request limit, in seconds: what the suite gives the whole scenario
 * (SWITCHBOARD_CONFORMANCE_TIMEOUT_MS, the runner's --timeout) less 5 s to report and close,
 * so a slow machine fails on the suite's clock rather than on a fixed one of ours. 20 s alone.
 */
function limitS(): number {
  const suiteMs = Number(process.env.SWITCHBOARD_CONFORMANCE_TIMEOUT_MS);
  return Number.isFinite(suiteMs) && suiteMs > 10_000 ? (suiteMs - 5_000) / 1000 : 20;
}

/** Opens a Connection, runs `fn` with it and always closes it, also when `fn` throws. */
export async function withConnection<T>(
  ctx: ScenarioContext,
  options: OpenOptions,
  fn: (conn: Connection) => Promise<T>,
): Promise<T> {
  const connectionOptions: ConnectionOptions = {
    config: normalizeServerEntry({
      name: 'conformance',
      url: ctx.url,
      protocol: protocolFor(),
      timeouts: { connect: limitS(), request: limitS() },
      ...(options.auth && { auth: options.auth }),
    }),
    clientInfo: { name: 'switchboard-conformance', version: '0.1.0' },
    onLog: logLine,
    ...(options.elicitation && { elicitation: options.elicitation }),
    ...(options.sampling && { sampling: options.sampling }),
    ...(options.env && { env: options.env }),
    ...(options.credentials && { credentials: options.credentials }),
    ...(options.onAuthorizationUrl && { onAuthorizationUrl: options.onAuthorizationUrl }),
  };
  const conn = new Connection(connectionOptions);
  try {
    await conn.connect();
    process.stderr.write(`[${PROGRAM}] connected: protocol ${conn.protocolVersion} (${conn.era})\n`);
    const era = expectedEra(ctx);
    if (era !== undefined && conn.era !== era && options.eitherEra !== true) {
      fail(`negotiated ${conn.protocolVersion} (${conn.era}), but the server speaks ${ctx.wire} (${era})`);
    }
    return await fn(conn);
  } finally {
    await conn.close();
  }
}

export async function toolNames(conn: Connection): Promise<string[]> {
  const { items, truncated } = await conn.listTools();
  if (truncated) fail('tools/list was truncated');
  return items.map((t) => t.name);
}

export async function requireTool(conn: Connection, name: string): Promise<void> {
  const names = await toolNames(conn);
  if (!names.includes(name)) fail(`tool "${name}" is not listed (tools: ${names.join(', ') || 'none'})`);
}

/** Calls a tool and fails on an `isError` result. */
export async function callOk(
  conn: Connection,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolResult> {
  const result = await conn.callTool(name, args);
  if (result.isError) fail(`tool "${name}" returned an error: ${result.text || JSON.stringify(result.raw)}`);
  return result;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
