import {
  type AccessLogEntry,
  type GatewayContext,
  type GatewayLogger,
  type Middleware,
  requestHead,
} from '../../../src/gateway/http/context.js';
import { HttpError } from '../../../src/gateway/http/http-error.js';
import { streamedBody } from '../../../src/gateway/http/middleware/body-cap.js';

/** A logger that keeps what it is told, for assertions. */
export interface RecordingLogger extends GatewayLogger {
  readonly accessed: AccessLogEntry[];
  readonly warnings: string[];
  readonly errors: { message: string; error: unknown }[];
}

export function recordingLogger(): RecordingLogger {
  const accessed: AccessLogEntry[] = [];
  const warnings: string[] = [];
  const errors: { message: string; error: unknown }[] = [];
  return {
    accessed,
    warnings,
    errors,
    access: (entry) => accessed.push(entry),
    warn: (message) => warnings.push(message),
    error: (message, error) => errors.push({ message, error }),
  };
}

/**
 * A context as the chain would make it, for running one middleware alone. Its `abort` fails
 * the test unless one is given: make the request with `abortableRequest` to test aborting.
 */
export function contextFor(request: Request, overrides: Partial<GatewayContext> = {}): GatewayContext {
  return {
    request,
    head: requestHead(request),
    // As the chain does for a request handed in whole: the body cap reads its stream.
    ...(request.body && { unreadBody: streamedBody(request.body) }),
    id: 'test-id',
    remoteAddress: '127.0.0.1',
    startedAt: 0,
    signal: request.signal,
    abort: () => {
      throw new Error('This context cannot abort: build its request with abortableRequest().');
    },
    log: recordingLogger(),
    ...overrides,
  };
}

/**
 * A request whose signal `abort` aborts (as the adapter makes them), following `init.signal`
 * too, like a client going away; pass `abort` on to `contextFor`.
 */
export function abortableRequest(
  url: string,
  init: RequestInit = {},
): { request: Request; abort: (reason: unknown) => void } {
  const controller = new AbortController();
  const client = init.signal;
  if (client) {
    const forward = () => controller.abort(client.reason);
    if (client.aborted) forward();
    else client.addEventListener('abort', forward, { once: true });
  }
  return {
    request: new Request(url, { ...init, signal: controller.signal }),
    abort: (reason) => controller.abort(reason),
  };
}

/** Runs one middleware with a `next` that answers 200 and counts its calls. */
export async function runStep(
  step: Middleware,
  ctx: GatewayContext,
  answer: (ctx: GatewayContext) => Promise<Response> = async () => new Response('ok'),
): Promise<{ response?: Response; error?: HttpError; nextCalls: number }> {
  let nextCalls = 0;
  try {
    const response = await step(ctx, () => {
      nextCalls += 1;
      return answer(ctx);
    });
    return { response, nextCalls };
  } catch (error) {
    if (error instanceof HttpError) return { error, nextCalls };
    throw error;
  }
}

/** A clock the test moves by hand. */
export function manualClock(start = 1_900_000_000_000): { now: () => number; advance: (ms: number) => void } {
  let current = start;
  return { now: () => current, advance: (ms) => (current += ms) };
}

/** A body stream that yields `chunks` and has no length (like a chunked upload). */
export function chunkedBody(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream({
    pull(controller) {
      const chunk = chunks[index++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
}

/** A timer source the test fires by hand. */
export function manualSchedule(): {
  schedule: (fire: () => void, ms: number) => () => void;
  timers: { ms: number; cancelled: boolean; fire: () => void }[];
  fireAll: () => void;
} {
  const timers: { ms: number; cancelled: boolean; fire: () => void }[] = [];
  return {
    timers,
    schedule: (fire, ms) => {
      const timer = { ms, cancelled: false, fire };
      timers.push(timer);
      return () => {
        timer.cancelled = true;
      };
    },
    fireAll: () => {
      for (const timer of timers) if (!timer.cancelled) timer.fire();
    },
  };
}
