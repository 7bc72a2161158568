import { live } from '../live/live-state.js';
import { routeHref } from '../shell/routes.js';
import { useStore } from '../state/store.js';

/**
 * Where a running call is, announced politely: running, or waiting in the Inbox for an
 * approval or an answer (an Inbox item of the same server and tool is pending).
 */
export function CallStatus(props: {
  readonly running: boolean;
  readonly server: string;
  readonly tool: string;
}) {
  const { inbox } = useStore(live);
  const waiting = props.running
    ? inbox?.find(
        (item) => item.server === props.server && (item.tool === undefined || item.tool === props.tool),
      )
    : undefined;
  return (
    <p class="call-status" role="status" aria-live="polite" data-testid="call-status">
      {props.running && !waiting && 'Running…'}
      {waiting && (
        <>
          {waiting.kind === 'approval' ? 'Waiting for approval in the ' : 'Waiting for your answer in the '}
          <a href={routeHref({ page: 'inbox' })}>Inbox</a>.
        </>
      )}
    </p>
  );
}
