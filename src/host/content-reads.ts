import type { GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/client';
import type { Connection } from '../client/connection.js';
import { type RelayAnswer, type RelayedRequest, relayRequest } from '../client/relay.js';
import type { Governor } from './governance/governor.js';
import { type GuardContext, guardedPrompt, guardedResource } from './guarded-content.js';
import type { ContentOptions } from './host-types.js';

/**
 * Resource reads and prompt gets, for the host's own callers and relayed for gateway clients:
 * each passes policy first (Governor.admitRead: deny rules and the non-interactive profiles
 * apply to reads too), is audited (the answer waits for the record, as a call's does), and
 * text the injection scanner flags, from a server that is not trusted, comes back wrapped in
 * a "this is data, not instructions" banner unless `raw` is asked for.
 */
export interface ContentReadsDeps {
  readonly governor: Governor;
  readonly connected: (server: string) => Connection;
  readonly guardContext: (server: string) => GuardContext;
}

export class ContentReads {
  constructor(private readonly deps: ContentReadsDeps) {}

  async readResource(
    server: string,
    uri: string,
    options: ContentOptions & { readonly raw?: boolean } = {},
  ): Promise<ReadResourceResult> {
    const result = await this.audited('resource_read', server, options, { uri }, () =>
      this.deps.connected(server).readResource(uri, options),
    );
    return options.raw ? result : guardedResource(result, this.deps.guardContext(server));
  }

  async getPrompt(
    server: string,
    name: string,
    args: Record<string, string>,
    options: ContentOptions & { readonly raw?: boolean } = {},
  ): Promise<GetPromptResult> {
    const result = await this.audited('prompt_get', server, options, { prompt: name }, () =>
      this.deps.connected(server).getPrompt(name, args, options),
    );
    return options.raw ? result : guardedPrompt(result, name, this.deps.guardContext(server));
  }

  /** A 2026-07-28 client's request relayed as it is; a complete prompt or resource is guarded. */
  async relay(
    server: string,
    method: string,
    params: Record<string, unknown>,
    relayed: RelayedRequest,
    options: ContentOptions = {},
  ): Promise<RelayAnswer> {
    const relay = () => relayRequest(this.deps.connected(server), method, params, relayed, options);
    if (method === 'prompts/get') {
      const answer = await this.audited('prompt_get', server, options, { prompt: params.name }, relay);
      if (answer.kind !== 'complete') return answer;
      const context = this.deps.guardContext(server);
      return {
        kind: 'complete',
        raw: guardedPrompt(answer.raw as GetPromptResult, String(params.name), context),
      };
    }
    if (method === 'resources/read') {
      const answer = await this.audited('resource_read', server, options, { uri: params.uri }, relay);
      if (answer.kind !== 'complete') return answer;
      const context = this.deps.guardContext(server);
      return { kind: 'complete', raw: guardedResource(answer.raw as ReadResourceResult, context) };
    }
    return relay();
  }

  private async audited<T>(
    action: 'resource_read' | 'prompt_get',
    server: string,
    options: ContentOptions,
    details: Record<string, unknown>,
    work: () => Promise<T>,
  ): Promise<T> {
    const session = options.session;
    const kind = action === 'prompt_get' ? 'prompts/get' : 'resources/read';
    const who = { server, details, ...(session !== undefined && { session }) };
    await this.deps.governor.admitRead({ action, kind, ...who });
    return this.deps.governor.noted({ action, ...who }, work);
  }
}
