import { type Attributes, context, ROOT_CONTEXT, type Span, SpanKind, trace } from '@opentelemetry/api';
import { SwitchboardError } from '../errors.js';
import { SWITCHBOARD_ERROR_CODE, SWITCHBOARD_OUTCOME } from './semconv.js';
import { errorTypeOf, failSpan, switchboardTracer, tracingOn } from './trace-context.js';

/**
 * One step of a call as a span of its own — a policy decision, an approval or elicitation
 * wait, a connect, an OAuth refresh, a round of a multi-round request — a child of whatever
 * span is active (the call's), and the active span itself while the step runs, so what the
 * step sends (an HTTP request, a nested request) nests under it. Without a tracer provider
 * `fn` runs as it is: no span object, no attributes, no context switch.
 */
export interface StepOptions<T> {
  readonly kind?: SpanKind;
  /** Attributes known at the start; a function, so they are built only when a span records. */
  readonly attributes?: () => Attributes;
  /** Attributes from the step's value (its outcome, what it answered). */
  readonly ended?: (value: T) => Attributes | undefined;
  /**
   * Start a trace of its own rather than a child of the active span: for work no caller
   * waits on (a supervisor's reconnect), which would otherwise hang under whatever span was
   * active when its loop began, hours before.
   */
  readonly root?: boolean;
}

export function stepSpan<T>(
  name: string,
  options: StepOptions<T>,
  fn: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!tracingOn()) return fn(undefined);
  const parent = options.root ? ROOT_CONTEXT : context.active();
  const span = switchboardTracer().startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL }, parent);
  const within = trace.setSpan(parent, span);
  if (!span.isRecording()) return context.with(within, () => fn(undefined));
  if (options.attributes) span.setAttributes(options.attributes());
  return context.with(within, async () => {
    try {
      const value = await fn(span);
      span.setAttributes({ [SWITCHBOARD_OUTCOME]: 'ok', ...options.ended?.(value) });
      return value;
    } catch (error) {
      endFailed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Marks `span` as failed by `error`: `error.type`, our code and outcome, status ERROR. */
export function endFailed(span: Span, error: unknown): void {
  failSpan(span, errorTypeOf(error), error instanceof Error ? error.message : undefined);
  span.setAttribute(SWITCHBOARD_OUTCOME, outcomeOfError(error));
  if (error instanceof SwitchboardError) span.setAttribute(SWITCHBOARD_ERROR_CODE, error.code);
}

/** The outcome word of a failure (semconv.ts, `switchboard.outcome`). */
export function outcomeOfError(error: unknown): string {
  if (!(error instanceof SwitchboardError)) return 'error';
  switch (error.code) {
    case 'POLICY_DENIED':
      return 'denied';
    case 'APPROVAL_DECLINED':
      return 'declined';
    case 'REQUEST_TIMEOUT':
      return 'timeout';
    case 'REQUEST_CANCELLED':
      return 'cancelled';
    default:
      return 'error';
  }
}
