import type { ApiServerState } from '../../src/gateway/api/api-types.js';

const WORDS: Readonly<Record<ApiServerState, string>> = {
  connected: 'connected',
  connecting: 'connecting',
  reconnecting: 'reconnecting',
  needs_auth: 'needs auth',
  failed: 'failed',
  disabled: 'disabled',
};

/** A server's state in colour and in words (the colour alone says nothing to some people). */
export function StateBadge(props: { readonly name: string; readonly state: ApiServerState }) {
  return (
    <span
      class={`state state-${props.state}`}
      data-testid={`server-state-${props.name}`}
      data-state={props.state}
    >
      <span class="state-dot" aria-hidden="true" />
      {WORDS[props.state] ?? props.state}
    </span>
  );
}
