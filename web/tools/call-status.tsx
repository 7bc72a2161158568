import { live } from '../live/live-state.js';
import { routeHref } from '../shell/routes.js';
import { useStore } from '../state/store.js';

/**
 * Where a running call is, announced politely: running, or waiting in the Inbox for an
 * approval or an answer (an Inbox item of the same server and tool is pending); and that a
 * call was cancelled, which leaves no result to show.
 */
export function CallStatus(props: {
  readonly running: boolean;
  readonly cancelled?: boolean;
  readonly server: string;
  readonly tool: string;
}) {
  const { inbox } = useStore(live);
  const waiting = props.running
    ? inbox?.find(
        (item) => item.server === props.server && (item.tool === undefined || item.tool === props.tool),
      )
    : undefined;
  const state = waiting ? 'waiting' : props.running ? 'running' : props.cancelled ? 'cancelled' : 'idle';
  return (
    <p class="call-status" role="status" aria-live="polite" data-testid="call-status" data-state={state}>
      {state === 'running' && 'Running…'}
      {state === 'cancelled' && 'Cancelled.'}
      {waiting && (
        <>
          {waiting.kind === 'approval' ? 'Waiting for approval in the ' : 'Waiting for your answer in the '}
          <a href={routeHref({ page: 'inbox' })}>Inbox</a>.
        </>
      )}
    </p>
  );
}
