import { CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/client';
import { SwitchboardError } from '../core/errors.js';
import type { CallOptions } from './connection-types.js';
import { untunnelTaskResult } from './tool-tasks.js';

/**
 * Relaying a 2026-07-28 client's request through Switchboard (the gateway) to a 2026-07-28
 * server, as the client sent it: the client's own per-request capabilities go upstream in
 * place of ours, its `inputResponses` and the server's `requestState` are passed along, and
 * the server's answer comes back as it is — `input_required` (the client answers, not us) or
 * a Tasks-extension CreateTaskResult (the client polls, not us) — instead of being fulfilled
 * or followed here. Stateless across rounds: every round is one upstream request.
 */

/** What of the calling client's request crosses the hop. */
export interface RelayedRequest {
  /** Its per-request capabilities (`_meta` envelope); the server asks only for what they allow. */
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  /** Its answers to the server's previous `inputRequests`, by key. */
  readonly inputResponses?: Readonly<Record<string, unknown>>;
  /** The server's `requestState` from the previous round, byte for byte. */
  readonly requestState?: string;
}

/** The server's answer, by `resultType`: complete, more input wanted, or a task was created. */
export type RelayAnswer =
  | { readonly kind: 'complete'; readonly raw: Record<string, unknown> }
  | { readonly kind: 'input_required'; readonly raw: Record<string, unknown> }
  | { readonly kind: 'task'; readonly raw: Record<string, unknown> };

/** The one method of a connection a relay needs (Connection.request). */
export interface RelayChannel {
  readonly name: string;
  readonly era: 'modern' | 'legacy' | undefined;
  request<T>(
    method: string,
    params: Record<string, unknown>,
    parse: (raw: unknown) => T,
    options: CallOptions & { readonly allowInputRequired?: boolean },
  ): Promise<T>;
}

/**
 * Sends `method` with `params` for the relayed client and classifies the answer. The
 * connection must speak 2026-07-28 (a 2025 server has no `input_required` results to pass on);
 * `NOT_SUPPORTED` otherwise.
 */
export async function relayRequest(
  channel: RelayChannel,
  method: string,
  params: Record<string, unknown>,
  relayed: RelayedRequest,
  options: CallOptions = {},
): Promise<RelayAnswer> {
  if (channel.era !== 'modern') {
    throw new SwitchboardError(
      'INVALID_ARGUMENT',
      `Server "${channel.name}" speaks a 2025 protocol revision, so ${method} cannot be relayed as a 2026-07-28 request; call it through the host instead.`,
      { details: { server: channel.name, method } },
    );
  }
  const raw = await channel.request(
    method,
    {
      ...params,
      ...(relayed.inputResponses && { inputResponses: relayed.inputResponses }),
      ...(relayed.requestState !== undefined && { requestState: relayed.requestState }),
      _meta: { [CLIENT_CAPABILITIES_META_KEY]: relayed.clientCapabilities },
    },
    untunnelTaskResult,
    { ...options, allowInputRequired: true },
  );
  const kind =
    raw.resultType === 'input_required' ? 'input_required' : raw.resultType === 'task' ? 'task' : 'complete';
  return { kind, raw };
}
