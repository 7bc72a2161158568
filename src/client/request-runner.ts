import type { Client, RequestOptions } from '@modelcontextprotocol/client';
import { ControllerPool, listenForAbort, stopListening } from '../core/controller-pool.js';
import { SwitchboardError } from '../core/errors.js';
import type { CallOptions } from './connection-types.js';
import { DeadlineGroup } from './deadline.js';
import { mapSdkError } from './error-mapping.js';
import { type RequestAbout, RequestSpan, type UpstreamFacts } from './request-span.js';
import { ProgressRouter } from './transport-tap.js';

/**
 * How one connection runs a request: our deadline (reset on progress, paused while a person
 * answers an elicitation), the caller's signal, progress by our own token, typed errors, and
 * one more try after the connection recovered (an expired HTTP session). The SDK's own
 * timeout cannot pause, so it is disabled and ours cancels.
 */

/** `_meta` we attach to requests: our progress token, and what the connection adds (log level). */
export type RequestMeta = { progressToken: string } & Record<string, unknown>;

/** What the runner needs of its connection. */
export interface RunnerHost {
  readonly name: string;
  /** The request budget when the call gives none. */
  readonly requestMs: number;
  /** The SDK client to send with; throws a typed error when not connected. */
  client(method: string): Client;
  /** Adds the connection's own `_meta` (the log level a 2026-07-28 server needs asking for). */
  decorate(meta: RequestMeta): void;
  /** After a failure: true when the connection recovered and the request should go once more. */
  recover(error: SwitchboardError, client: Client): Promise<boolean>;
  /** A failure as the request reports it: one cut off by a drop says the drop's cause. */
  explain(error: SwitchboardError, client: Client, method: string): SwitchboardError;
  /** What the request's span and metric say of the peer (request-span.ts). */
  facts(): UpstreamFacts;
}

const NO_SDK_TIMEOUT = 2_147_483_647;

export class RequestRunner {
  readonly deadlines = new DeadlineGroup();
  readonly progress = new ProgressRouter();
  private readonly controllers = new ControllerPool();

  constructor(private readonly host: RunnerHost) {}

  /**
   * Runs one request, under one CLIENT span and one `mcp.client.operation.duration` record
   * however many tries it takes; `about` names its target (tool, prompt, resource).
   */
  async run<T>(
    method: string,
    options: CallOptions,
    fn: (client: Client, rq: RequestOptions, meta: RequestMeta) => Promise<T>,
    about?: RequestAbout,
  ): Promise<T> {
    if (!RequestSpan.wanted()) return this.attempt(method, options, fn, undefined, false);
    const span = new RequestSpan(method, about, this.host.facts());
    try {
      const result = await span.within(() => this.attempt(method, options, fn, span, false));
      span.succeeded(result);
      return result;
    } catch (error) {
      span.failed(error);
      throw error;
    }
  }

  private async attempt<T>(
    method: string,
    options: CallOptions,
    fn: (client: Client, rq: RequestOptions, meta: RequestMeta) => Promise<T>,
    span: RequestSpan | undefined,
    retried: boolean,
  ): Promise<T> {
    const client = this.host.client(method);
    const controller = this.controllers.take();
    const budget = options.timeoutMs ?? this.host.requestMs;
    let timedOut = false;
    const deadline = this.deadlines.start(budget, () => {
      timedOut = true;
      controller.abort('timeout');
    });
    const userSignal = options.signal;
    const onAbort = () => controller.abort('cancelled');
    if (userSignal) listenForAbort(userSignal, onAbort);
    // Progress is routed by our own token, read straight off the transport: the SDK dispatches
    // notifications a tick after responses, so its handler loses the last progress event.
    const progressToken = this.progress.open((p) => {
      deadline.reset();
      options.onProgress?.(p);
    });
    const { name } = this.host;
    try {
      const meta: RequestMeta = { progressToken };
      this.host.decorate(meta);
      span?.inject(meta);
      return await fn(client, { signal: controller.signal, timeout: NO_SDK_TIMEOUT }, meta);
    } catch (error) {
      if (timedOut) {
        throw new SwitchboardError(
          'REQUEST_TIMEOUT',
          `Server "${name}" did not answer ${method} within ${formatDuration(budget)}; the request was cancelled. ` +
            'Raise timeouts.request for this server if it is just slow.',
          { cause: error, details: { server: name, timeoutMs: budget } },
        );
      }
      if (userSignal?.aborted) {
        throw new SwitchboardError(
          'REQUEST_CANCELLED',
          `${method} on server "${name}" was cancelled by the caller.`,
          {
            cause: error,
            details: { server: name },
          },
        );
      }
      const mapped = this.host.explain(mapSdkError(error, name, method), client, method);
      if (!retried && (await this.host.recover(mapped, client)))
        return this.attempt(method, options, fn, span, true);
      throw mapped;
    } finally {
      this.progress.close(progressToken);
      this.deadlines.end(deadline);
      this.controllers.release(controller); // its listeners are gone once the request settled
      if (userSignal) stopListening(userSignal, onAbort);
    }
  }
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}
