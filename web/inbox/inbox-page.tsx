import type { ApiInboxItem } from '../../src/gateway/api/api-types.js';
import { live } from '../live/live-state.js';
import { useApp } from '../shell/app-context.js';
import { ErrorBanner } from '../shell/error-banner.js';
import { useStore } from '../state/store.js';
import { useAsync } from '../state/use-async.js';
import { ApprovalCard } from './approval-card.js';
import { ElicitationCard } from './elicitation-card.js';
import { YourCalls } from './your-calls.js';

/**
 * Everything waiting for a person, live from the stream: approvals of tool calls and
 * servers' questions (elicitations). Until the stream's first snapshot, the list comes from
 * `GET /api/inbox`.
 */
export function InboxPage() {
  const { client } = useApp();
  const { inbox } = useStore(live);
  const fallback = useAsync(
    () => (inbox ? Promise.resolve(undefined) : client.get<{ items: ApiInboxItem[] }>('/api/inbox')),
    [client, inbox === undefined],
  );
  const items = [...(inbox ?? fallback.data?.items ?? [])].sort((a, b) =>
    a.createdAt.localeCompare(b.createdAt),
  );
  return (
    <section aria-labelledby="inbox-title">
      <h1 id="inbox-title">Inbox</h1>
      <ErrorBanner error={fallback.error} />
      {items.length === 0 && (
        <p class="muted" data-testid="inbox-empty">
          Nothing is waiting. Tool calls that need your approval and questions from servers appear here as
          they happen.
        </p>
      )}
      <ul class="inbox-list">
        {items.map((item) => (
          <li key={item.id}>
            {item.kind === 'approval' ? <ApprovalCard item={item} /> : <ElicitationCard item={item} />}
          </li>
        ))}
      </ul>
      <YourCalls />
    </section>
  );
}
