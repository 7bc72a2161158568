import type { ToolResult } from '../../client/results.js';
import type { GovernanceConfig } from '../../core/config/governance-config.js';
import { describeError, isSwitchboardError, SwitchboardError } from '../../core/errors.js';
import { objectJsonPieces } from '../../core/json-text.js';
import type { TrustLevel } from '../../core/server-config.js';
import { countApprovalWaiting } from '../../core/telemetry/counters.js';
import {
  GEN_AI_TOOL_NAME,
  SPAN_APPROVAL,
  SPAN_POLICY,
  SWITCHBOARD_ANSWER,
  SWITCHBOARD_POLICY_REASON,
  SWITCHBOARD_POLICY_RISK,
  SWITCHBOARD_POLICY_VERDICT,
  SWITCHBOARD_SERVER,
} from '../../core/telemetry/semconv.js';
import { stepSpan } from '../../core/telemetry/step-span.js';
import { switchboardTracer, tracingOn } from '../../core/telemetry/trace-context.js';
import { type ApprovalMode, type Decision, decide, decideRead, type ReadKind } from '../../policy/decide.js';
import type { AuditRepository, KeyValueRepository, PinRepository } from '../../storage/ports.js';
import type { CatalogTool } from '../catalog/catalog.js';
import { CallWindow } from '../stats/call-window.js';

/**
 * The governed call path: before a tool call goes upstream, the policy core decides (allow,
 * ask, deny) from the server's trust, the tool's annotations, the session's approval mode and
 * "always allow" list, the rules, and whether the tool's definition changed since it was
 * approved. `ask` goes to a person (the Inbox) and waits. Every decision and every call lands
 * in the audit log — names, decision, duration, outcome and size, never the arguments.
 */

/** What a person is asked to approve. */
export interface ApprovalRequest {
  readonly server: string;
  readonly tool: string;
  readonly session: string;
  readonly args: Record<string, unknown>;
  readonly inputSchema?: unknown;
  readonly reason: string;
}

export type ApprovalAnswer =
  | { readonly approved: true; readonly always: boolean }
  | { readonly approved: false; readonly reason: string };

/** Asks a person (the Inbox and its front-ends). */
export type AskApproval = (
  request: ApprovalRequest,
  options: { readonly signal?: AbortSignal },
) => Promise<ApprovalAnswer>;

export interface GovernorOptions {
  readonly settings: GovernanceConfig;
  readonly trustOf: (server: string) => TrustLevel;
  readonly store: {
    readonly kv: KeyValueRepository;
    readonly pins: PinRepository;
    readonly audit: AuditRepository;
  };
  readonly askApproval: AskApproval;
  /** Told when the audit log cannot be written (the call itself goes on). */
  readonly onError?: (error: unknown) => void;
}

/** The session a call without one belongs to. */
export const DEFAULT_SESSION = 'default';
const ALLOWLIST_NAMESPACE = 'session-allowlist';

/** A call that passed policy, carried to `record` once it has run. */
export interface Admission {
  readonly tool: CatalogTool;
  readonly session: string;
  readonly decision: Decision;
  /** A person approved it (the decision was `ask`). */
  readonly approved: boolean;
  /** Who made the call when not the session's agent or user: `app` (an MCP App's view). */
  readonly via?: string;
}

export class Governor {
  private readonly modes = new Map<string, ApprovalMode>();
  private readonly allowlists = new Map<string, Promise<Set<string>>>();
  /** The allowlists read already, by session (the same sets as `allowlists` resolves to). */
  private readonly loadedAllowlists = new Map<string, Set<string>>();
  private readonly changed = new Set<string>();
  /**
   * Recent calls per server (rate, latency, errors, refusals over the last minutes), kept in
   * process whether or not OpenTelemetry is on: what the dashboard's charts draw. Fed here
   * because every call, refused or run, passes through `admit` and `record`.
   */
  readonly calls = new CallWindow();

  private constructor(private readonly options: GovernorOptions) {}

  /** Loads the tools whose definitions changed and wait for approval. */
  static async create(options: GovernorOptions): Promise<Governor> {
    const governor = new Governor(options);
    for (const pin of await options.store.pins.listChanged()) governor.changed.add(key(pin.server, pin.tool));
    return governor;
  }

  /** Audit records appended and not yet committed: the audit queue's depth. */
  get auditBacklog(): number {
    return this.options.store.audit.pendingWrites();
  }

  get settings(): GovernanceConfig {
    return this.options.settings;
  }

  /** Sets a session's approval mode (until the process ends); others use the configured one. */
  setMode(session: string, mode: ApprovalMode): void {
    this.modes.set(session, mode);
  }

  modeOf(session: string = DEFAULT_SESSION): ApprovalMode {
    return this.modes.get(session) ?? this.options.settings.mode;
  }

  /** The host saw a definition differ from its pin. */
  noteChanged(server: string, tool: string): void {
    this.changed.add(key(server, tool));
  }

  /** The current definition was approved as the pin. */
  noteApproved(server: string, tool: string): void {
    this.changed.delete(key(server, tool));
  }

  /** What policy says of `tool` for `session`, without asking anyone. */
  async decision(tool: CatalogTool, session: string = DEFAULT_SESSION): Promise<Decision> {
    return this.decisionWith(
      tool,
      session,
      this.loadedAllowlists.get(session) ?? (await this.allowlist(session)),
    );
  }

  private decisionWith(tool: CatalogTool, session: string, allowlist: ReadonlySet<string>): Decision {
    const { settings } = this.options;
    return decide({
      server: tool.server,
      tool: tool.tool.name,
      trust: this.options.trustOf(tool.server),
      ...(tool.tool.annotations && { annotations: tool.tool.annotations }),
      mode: this.modeOf(session),
      profile: settings.profile,
      rules: settings.rules,
      sessionAllowlist: allowlist,
      definitionChanged: this.changed.has(key(tool.server, tool.tool.name)),
    });
  }

  /** Adds a tool to a session's "always allow" list, persisted. */
  async allowAlways(session: string, server: string, tool: string): Promise<void> {
    const list = await this.allowlist(session);
    list.add(key(server, tool));
    await this.options.store.kv.set(ALLOWLIST_NAMESPACE, session, [...list].sort());
  }

  /**
   * Decides a call; on `ask`, asks a person and waits. Throws POLICY_DENIED or
   * APPROVAL_DECLINED (both audited) when the call must not run.
   */
  async admit(
    tool: CatalogTool,
    args: Record<string, unknown>,
    context: {
      readonly session?: string;
      readonly signal?: AbortSignal;
      readonly askApproval?: AskApproval;
      /** Who made the call (`app`), recorded with it. */
      readonly via?: string;
    } = {},
  ): Promise<Admission> {
    const session = context.session ?? DEFAULT_SESSION;
    // Decided without waiting once the session's allowlist is loaded (every call after its first).
    const loaded = this.loadedAllowlists.get(session);
    const decision = loaded ? this.decisionWith(tool, session, loaded) : await this.decision(tool, session);
    if (tracingOn()) policySpan(tool, decision);
    const base = { tool, session, decision, ...(context.via !== undefined && { via: context.via }) };
    if (decision.verdict === 'deny') {
      this.calls.record(tool.server, 0, 'refused');
      await this.audit(base, 'denied', {});
      throw new SwitchboardError(
        'POLICY_DENIED',
        `The call to ${tool.name} is denied: ${decision.reason}. Change the governance rules to allow it.`,
        { details: { server: tool.server, tool: tool.tool.name, reason: decision.reason } },
      );
    }
    if (decision.verdict === 'allow') return { ...base, approved: false };
    const ask = context.askApproval ?? this.options.askApproval;
    const request: ApprovalRequest = {
      server: tool.server,
      tool: tool.tool.name,
      session,
      args,
      inputSchema: tool.tool.inputSchema,
      reason: decision.reason,
    };
    countApprovalWaiting(tool.server, 1);
    const answer = await stepSpan(
      SPAN_APPROVAL,
      {
        attributes: () => ({ [SWITCHBOARD_SERVER]: tool.server, [GEN_AI_TOOL_NAME]: tool.tool.name }),
        ended: (given) => ({
          [SWITCHBOARD_ANSWER]: given.approved ? (given.always ? 'always' : 'once') : 'declined',
        }),
      },
      () => ask(request, { ...(context.signal && { signal: context.signal }) }),
    ).finally(() => countApprovalWaiting(tool.server, -1));
    if (!answer.approved) {
      this.calls.record(tool.server, 0, 'refused');
      await this.audit(base, 'declined', { answer: answer.reason });
      throw new SwitchboardError(
        'APPROVAL_DECLINED',
        `The call to ${tool.name} was not approved (${answer.reason}); it asked because ${decision.reason}.`,
        {
          details: {
            server: tool.server,
            tool: tool.tool.name,
            reason: answer.reason,
            asked: decision.reason,
          },
        },
      );
    }
    if (answer.always) {
      // "Always" on a changed definition accepts the new definition as the pin; otherwise it
      // puts the tool on the session's allowlist.
      if (this.changed.has(key(tool.server, tool.tool.name))) {
        await this.options.store.pins.approve(tool.server, tool.tool.name, tool.hash);
        this.noteApproved(tool.server, tool.tool.name);
      } else await this.allowAlways(session, tool.server, tool.tool.name);
    }
    return { ...base, approved: true };
  }

  /**
   * Decides a resource read or a prompt get (policy/decide.ts `decideRead`): nobody is asked,
   * but deny rules and the daemon and public_gateway profiles refuse them as they refuse
   * calls. A refusal is audited under `action` and thrown as POLICY_DENIED.
   */
  async admitRead(input: {
    readonly action: string;
    readonly kind: ReadKind;
    readonly server: string;
    readonly session?: string;
    readonly details?: Record<string, unknown>;
  }): Promise<void> {
    const { settings } = this.options;
    const decision = decideRead({
      server: input.server,
      kind: input.kind,
      profile: settings.profile,
      rules: settings.rules,
    });
    if (decision.verdict !== 'deny') return;
    await this.note({
      action: input.action,
      session: input.session ?? DEFAULT_SESSION,
      server: input.server,
      outcome: 'denied',
      details: { ...input.details, reason: decision.reason },
    });
    throw new SwitchboardError(
      'POLICY_DENIED',
      `The ${input.kind === 'prompts/get' ? 'prompt get' : 'resource read'} from ${input.server} is denied: ` +
        `${decision.reason}. Change the governance rules to allow it.`,
      { details: { server: input.server, tool: input.kind, reason: decision.reason } },
    );
  }

  /**
   * Audits a call that ran (or failed). Audit failures never fail the call (they go to
   * `onError`), but its answer waits for the record: it resolves once the record is committed,
   * so an answered call is an audited call even if the process is killed right after (the
   * store commits the records of one turn of the event loop together; docs/security.md).
   */
  record(
    admission: Admission,
    outcome: { readonly durationMs: number; readonly result?: ToolResult; readonly error?: unknown },
  ): Promise<void> {
    const status = outcome.error !== undefined ? 'error' : outcome.result?.isError ? 'tool_error' : 'ok';
    // A tool error counts as an error on the charts: the call did not do what was asked.
    this.calls.record(admission.tool.server, outcome.durationMs, status === 'ok' ? 'ok' : 'error');
    const details = callDetails(admission);
    details.approved = admission.approved;
    details.durationMs = roundMs(outcome.durationMs);
    if (outcome.result) details.resultBytes = resultBytes(outcome.result);
    if (outcome.error !== undefined) details.error = errorCode(outcome.error);
    return this.append(admission, status, details);
  }

  /**
   * Records what is not a tool call — a resource read, a prompt get, a grant, a server
   * registered or removed — once it is committed, as `record` does. Never throws.
   */
  async note(input: {
    readonly action: string;
    readonly session: string;
    readonly server?: string;
    readonly outcome?: string;
    readonly details?: Record<string, unknown>;
  }): Promise<void> {
    await this.options.store.audit
      .append({
        action: input.action,
        actor: input.session,
        ...(input.server !== undefined && { server: input.server }),
        ...(input.outcome !== undefined && { outcome: input.outcome }),
        ...(input.details && { details: input.details }),
      })
      .catch((error: unknown) => this.options.onError?.(error));
  }

  /**
   * Runs `work` (a read, a prompt get, a registration) and notes it with its outcome and
   * duration; the result is handed back only once the note is committed, like a call's.
   */
  async noted<T>(
    input: {
      readonly action: string;
      readonly session?: string;
      readonly server?: string;
      readonly details?: Record<string, unknown>;
    },
    work: () => Promise<T>,
  ): Promise<T> {
    const started = performance.now();
    const base = {
      action: input.action,
      session: input.session ?? DEFAULT_SESSION,
      ...(input.server !== undefined && { server: input.server }),
    };
    let value: T;
    try {
      value = await work();
    } catch (error) {
      const details = {
        ...input.details,
        durationMs: roundMs(performance.now() - started),
        error: errorCode(error),
      };
      await this.note({ ...base, outcome: 'error', details });
      throw error;
    }
    await this.note({
      ...base,
      outcome: 'ok',
      details: { ...input.details, durationMs: roundMs(performance.now() - started) },
    });
    return value;
  }

  private allowlist(session: string): Promise<Set<string>> {
    let list = this.allowlists.get(session);
    if (!list) {
      list = this.options.store.kv.get(ALLOWLIST_NAMESPACE, session).then((v) => {
        const read = new Set(Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
        // Unless the session's list was forgotten meanwhile (then the next call reads it again).
        if (this.allowlists.get(session) === list) this.loadedAllowlists.set(session, read);
        return read;
      });
      this.allowlists.set(session, list);
      // A failed read is not cached: the next call tries again.
      list.catch(() => this.allowlists.delete(session));
    }
    return list;
  }

  private audit(
    admission: Pick<Admission, 'tool' | 'session' | 'decision' | 'via'>,
    outcome: string,
    details: Record<string, unknown>,
  ): Promise<void> {
    return this.append(admission, outcome, Object.assign(callDetails(admission), details));
  }

  private async append(
    admission: Pick<Admission, 'tool' | 'session'>,
    outcome: string,
    details: Record<string, unknown>,
  ): Promise<void> {
    await this.options.store.audit
      .append({
        action: 'tool_call',
        server: admission.tool.server,
        actor: admission.session,
        outcome,
        details,
      })
      .catch((error: unknown) => this.options.onError?.(error));
  }
}

/**
 * The policy decision as a span of its own under the call (semconv.ts, `switchboard.policy.*`):
 * made and ended at once — the decision is synchronous — so a trace shows what policy said
 * and why beside how long the rest took.
 */
function policySpan(tool: CatalogTool, decision: Decision): void {
  const span = switchboardTracer().startSpan(SPAN_POLICY, {
    attributes: {
      [SWITCHBOARD_SERVER]: tool.server,
      [GEN_AI_TOOL_NAME]: tool.tool.name,
      [SWITCHBOARD_POLICY_VERDICT]: decision.verdict,
      [SWITCHBOARD_POLICY_REASON]: decision.reason,
      [SWITCHBOARD_POLICY_RISK]: decision.risk,
    },
  });
  span.end();
}

/** What every audit record of a call says: the tool, and what policy decided and why. */
function callDetails(admission: Pick<Admission, 'tool' | 'decision' | 'via'>): Record<string, unknown> {
  return {
    tool: admission.tool.tool.name,
    decision: admission.decision.verdict,
    reason: admission.decision.reason,
    risk: admission.decision.risk,
    ...(admission.via !== undefined && { via: admission.via }),
  };
}

function roundMs(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/** What the audit says of a failure: the error's code, or its text for errors of others. */
function errorCode(error: unknown): string {
  return isSwitchboardError(error) ? error.code : describeError(error);
}

function key(server: string, tool: string): string {
  return `${server}/${tool}`;
}

/**
 * The size of a result as sent (its JSON), in bytes, measured piece by piece: its parts' text
 * is the one the gateway writes the answer with (core/json-text.ts), so a large result is
 * encoded once, not twice, and its text is not copied to be measured.
 */
function resultBytes(result: ToolResult): number {
  let bytes = 0;
  for (const piece of objectJsonPieces(result.raw)) bytes += Buffer.byteLength(piece);
  return bytes;
}
