import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SwitchboardError, type SwitchboardErrorCode } from '../core/errors.js';
import type { CliContext } from './cli-context.js';

/**
 * A gateway (`serve`, `start`) running on a data dir, found by the one-shot verbs so that they
 * ask it — its servers are already connected — instead of starting the servers themselves.
 * The gateway writes `gateway.json` in its data dir once it listens (its API's base URL, its
 * pid and the project config file it serves) and removes it when it stops. A file whose pid is
 * gone, or whose gateway does not answer, is stale: the verb works locally as before. The API
 * is asked with the data dir's local token (local-token.ts), so only the owner's CLI is
 * answered; a gateway with configured auth takes no local token, and is not used.
 */

/** The file's name in the data dir. */
export const GATEWAY_FILE = 'gateway.json';

/** What the file holds. */
export interface GatewayAnnouncement {
  /** The listener's base URL (`http://127.0.0.1:7777`); the API is under `/api`. */
  readonly url: string;
  readonly pid: number;
  /** The project config file the gateway serves; a CLI with another `--config` does not use it. */
  readonly projectFile: string;
}

/** A gateway a verb may ask, with the token it is asked with. */
export interface RunningGateway extends GatewayAnnouncement {
  readonly token: string;
}

/**
 * Writes the announcement (mode 0600: it says where the owner's gateway is) and returns the
 * function that removes it — also called on the process's exit, so a gateway that ends some
 * other way leaves no file behind unless it is killed outright (the pid check covers that).
 */
export function announceGateway(dataDir: string, announcement: GatewayAnnouncement): () => void {
  const file = join(dataDir, GATEWAY_FILE);
  writeFileSync(file, `${JSON.stringify(announcement)}\n`, { mode: 0o600 });
  const remove = () => {
    process.off('exit', remove);
    // Only our own: another gateway may have announced itself on this data dir since.
    if (readAnnouncement(file)?.pid === process.pid) rmSync(file, { force: true });
  };
  process.on('exit', remove);
  return remove;
}

function readAnnouncement(file: string): GatewayAnnouncement | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // Missing, or half-written by a gateway starting this instant: not (yet) one to ask.
    return undefined;
  }
  const a = parsed as Partial<GatewayAnnouncement> | null;
  if (typeof a?.url !== 'string' || typeof a.pid !== 'number' || typeof a.projectFile !== 'string')
    return undefined;
  return { url: a.url, pid: a.pid, projectFile: a.projectFile };
}

/** Whether a process with this pid runs (EPERM: it does, as another user's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The gateway running on `ctx.dataDir` for `ctx.projectFile`, if there is one to ask: its
 * announcement is there, its process lives, and the local token is readable. `--local`
 * (`ctx.local`) never uses one. Whether it answers is found out by asking (`askGateway`).
 */
export async function runningGateway(ctx: CliContext): Promise<RunningGateway | undefined> {
  if (ctx.local) return undefined;
  const announcement = readAnnouncement(join(ctx.dataDir, GATEWAY_FILE));
  if (announcement === undefined || announcement.projectFile !== ctx.projectFile) return undefined;
  if (!alive(announcement.pid)) return undefined;
  // Loaded only now: a verb with no gateway to ask never reads the token code (or node:http).
  const { readLocalToken } = await import('../gateway/http/auth/local-token.js');
  const token = await readLocalToken(ctx.dataDir).catch(() => undefined);
  return token === undefined ? undefined : { ...announcement, token };
}

/** Why asking the gateway did not work out: it is not there (ask locally), or what it said. */
export class GatewayUnreachable extends Error {}

/** How long a verb waits for the gateway's answer before a read gives up on it. */
const READ_TIMEOUT_MS = 10_000;

/**
 * One request to the gateway's API; the JSON answer, a SwitchboardError with the API's code
 * for an error status, or GatewayUnreachable when it cannot be asked (refused connection, a
 * 401 because configured auth takes no local token): the caller then works locally.
 */
export async function askGateway<T>(
  gateway: RunningGateway,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  options: { readonly timeoutMs?: number } = {},
): Promise<T> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const { request } = await import('node:http');
  return new Promise<T>((resolve, reject) => {
    const req = request(
      new URL(path, gateway.url),
      {
        method,
        headers: {
          authorization: `Bearer ${gateway.token}`,
          accept: 'application/json',
          ...(payload !== undefined && { 'content-type': 'application/json' }),
        },
        timeout: options.timeoutMs ?? READ_TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (error) => reject(new GatewayUnreachable(error.message)));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          let json: unknown;
          try {
            json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            reject(new GatewayUnreachable(`the gateway answered ${status} without JSON`));
            return;
          }
          if (status === 401) reject(new GatewayUnreachable('the gateway takes no local token'));
          else if (status >= 400) reject(apiError(json, status));
          else resolve(json as T);
        });
      },
    );
    req.on('timeout', () =>
      req.destroy(new Error(`no answer within ${options.timeoutMs ?? READ_TIMEOUT_MS} ms`)),
    );
    req.on('error', (error) => reject(new GatewayUnreachable(error.message)));
    req.end(payload);
  });
}

/** The API's `{ error: { code, message, details } }` as the SwitchboardError a local run throws. */
function apiError(json: unknown, status: number): SwitchboardError {
  const error = (json as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
  const given = typeof error?.code === 'string' ? error.code : 'UPSTREAM_HTTP';
  // The API's "not connected" is the host's NOT_CONNECTED (exit 3), as a local run says it.
  const code = given === 'SERVER_UNAVAILABLE' ? 'NOT_CONNECTED' : given;
  const message = typeof error?.message === 'string' ? error.message : `The gateway answered ${status}.`;
  return new SwitchboardError(code as SwitchboardErrorCode, message, {
    ...(error?.details !== undefined && { details: error.details as Record<string, unknown> }),
  });
}

/**
 * `ask(gateway)` when a gateway runs on the data dir and can be asked; undefined when there is
 * none or it cannot be reached, so the verb works locally. Errors the gateway gave (a tool that
 * is not there, a denial) are the verb's.
 */
export async function viaGateway<T>(
  ctx: CliContext,
  ask: (gateway: RunningGateway) => Promise<T>,
): Promise<T | undefined> {
  const gateway = await runningGateway(ctx);
  if (gateway === undefined) return undefined;
  try {
    const answer = await ask(gateway);
    noteGateway(ctx, gateway);
    return answer;
  } catch (error) {
    if (error instanceof GatewayUnreachable) {
      if (ctx.verbose) ctx.err(`switchboard: not using the gateway at ${gateway.url}: ${error.message}.`);
      return undefined;
    }
    throw error;
  }
}

/** The stderr note that says who answered (not with --json or --quiet). */
export function noteGateway(ctx: CliContext, gateway: RunningGateway): void {
  if (!ctx.json && !ctx.quiet)
    ctx.err(`(via the running gateway at ${gateway.url}; --local starts the servers here)`);
}
