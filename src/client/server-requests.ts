import { pathToFileURL } from 'node:url';
import type {
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequest,
  ElicitResult,
} from '@modelcontextprotocol/client';
import type { RootConfig } from '../core/server-config.js';

/**
 * What a server may ask of us (elicitation, sampling, roots) and the pluggable handlers that
 * answer it. The same handlers serve legacy server→client requests and 2026-07-28
 * `input_required` results (the SDK routes both to them).
 */

/** Context given to every handler: which server asks, and a signal for when to give up. */
export interface ServerRequestContext {
  readonly server: string;
  readonly signal: AbortSignal;
}

export type ElicitationParams = ElicitRequest['params'];
export type ElicitationResponse = ElicitResult;

/** Answers an elicitation (form or URL mode). The default declines. */
export type ElicitationHandler = (
  params: ElicitationParams,
  ctx: ServerRequestContext,
) => Promise<ElicitationResponse>;

export type SamplingParams = CreateMessageRequest['params'];

/** Answers `sampling/createMessage`. Without one, the capability is not declared. */
export type SamplingHandler = (
  params: SamplingParams,
  ctx: ServerRequestContext,
) => Promise<CreateMessageResult>;

export const declineElicitation: ElicitationHandler = async () => ({ action: 'decline' });

/** Roots offered to `roots/list`: the configured ones, else the working directory. */
export function resolveRoots(
  configured: readonly RootConfig[] | undefined,
  cwd: string,
): { uri: string; name?: string }[] {
  if (configured && configured.length > 0) return configured.map((r) => ({ ...r }));
  return [{ uri: pathToFileURL(cwd).href, name: 'working directory' }];
}
