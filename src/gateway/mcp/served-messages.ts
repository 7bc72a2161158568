import type {
  JSONRPCMessage,
  MessageExtraInfo,
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/server';
import { context } from '@opentelemetry/api';
import type { HeaderCarrier } from '../../core/telemetry/trace-context.js';
import { answerOutcome } from './served-outcome.js';
import {
  messageOf,
  type ServedFacts,
  type ServedOperation,
  servedTelemetryOn,
  startServed,
} from './served-span.js';

/**
 * SERVER spans for the transports where a request and its answer are separate messages — the
 * stdio gateway (`serve --stdio`) and 2024-11-05 HTTP+SSE, whose POST is only acknowledged
 * and whose answer goes on the event stream. A request is delivered to the server within its
 * span's context (so the upstream request it makes nests under it) and the span ends when the
 * answer to its id is sent, or when the transport closes first. Without telemetry each message
 * passes through with one check.
 */
export class ServedMessages {
  private readonly pending = new Map<string | number, ServedOperation>();
  private protocolVersion: string | undefined;

  constructor(private readonly facts: () => Omit<ServedFacts, 'head' | 'protocolVersion'>) {}

  /** The version the session negotiated (the server tells its transport after `initialize`). */
  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  /** Hands `message` to `dispatch`, under a span when it is a request and telemetry is on. */
  deliver(message: JSONRPCMessage, dispatch: () => void, head?: HeaderCarrier): void {
    const request = servedTelemetryOn() ? messageOf(message) : undefined;
    const id = request?.id;
    if (request === undefined || (typeof id !== 'string' && typeof id !== 'number')) {
      dispatch();
      return;
    }
    const operation = startServed(request, {
      ...this.facts(),
      ...(head && { head }),
      protocolVersion: this.protocolVersion,
    });
    this.pending.get(id)?.end({ errorType: '_OTHER', message: 'a new request reused this id' });
    this.pending.set(id, operation);
    context.with(operation.context, dispatch);
  }

  /**
   * Runs `dispatch` in the context of `message`'s span, if one was started for it: for a
   * transport that queues messages before handing them on (the SDK's `serveStdio` pumps a
   * queue, so the context a message arrived in does not reach its handler).
   */
  within(message: JSONRPCMessage, dispatch: () => void): void {
    const { id } = message as { id?: unknown };
    const operation =
      this.pending.size > 0 && (typeof id === 'string' || typeof id === 'number')
        ? this.pending.get(id)
        : undefined;
    if (operation && 'method' in message) context.with(operation.context, dispatch);
    else dispatch();
  }

  /** Ends the span of the request `message` answers, if it is an answer to one. */
  sent(message: JSONRPCMessage): void {
    if (this.pending.size === 0) return;
    const { id } = message as { id?: unknown };
    if (typeof id !== 'string' && typeof id !== 'number') return;
    if (!('result' in message) && !('error' in message)) return;
    const operation = this.pending.get(id);
    if (!operation) return;
    this.pending.delete(id);
    operation.end(answerOutcome(message, id, 200));
  }

  /** The transport closed: what was never answered ends as failed. */
  closed(): void {
    for (const operation of this.pending.values())
      operation.end({ errorType: '_OTHER', message: 'the connection closed before the answer' });
    this.pending.clear();
  }
}

/**
 * `inner` with a SERVER span per request it carries (see `ServedMessages`): what the stdio
 * gateway hands the SDK's `serveStdio`, which sets its handlers on whatever transport it gets.
 */
export class ServedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  private readonly served: ServedMessages;

  constructor(
    private readonly inner: Transport,
    facts: () => Omit<ServedFacts, 'head' | 'protocolVersion'>,
  ) {
    this.served = new ServedMessages(facts);
    inner.onmessage = (message, extra) =>
      this.served.deliver(message, () => this.onmessage?.(message, extra));
    inner.onclose = () => {
      this.served.closed();
      this.onclose?.();
    };
    inner.onerror = (error) => this.onerror?.(error);
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    this.served.sent(message);
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion(version: string): void {
    this.served.setProtocolVersion(version);
    this.inner.setProtocolVersion?.(version);
  }

  /**
   * Makes `server` handle each request in its span's context: the SDK's `serveStdio` queues
   * what this transport delivers and hands it to the server later, through a channel it
   * connects the server to, so the handler runs wherever the queue's pump runs. The channel's
   * `onmessage`, set when the server connects, is wrapped to enter the request's context.
   */
  serveWithin<S extends { connect(channel: Transport): Promise<void> }>(server: S): S {
    const connect = server.connect.bind(server);
    server.connect = async (channel: Transport) => {
      await connect(channel);
      const deliver = channel.onmessage;
      if (deliver)
        channel.onmessage = (message, extra) =>
          this.served.within(message, () => deliver.call(channel, message, extra));
    };
    return server;
  }
}
