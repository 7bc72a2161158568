import type { ApiInboxItem } from '../../src/gateway/api/api-types.js';
import { ErrorBanner } from '../shell/error-banner.js';
import { DeclineButton } from './decline-button.js';
import { InboxCard } from './inbox-card.js';
import { useAnswer } from './use-answer.js';

/** A tool call waiting for approval: which tool, its arguments (masked), why policy asks. */
export function ApprovalCard(props: { readonly item: ApiInboxItem }) {
  const { item } = props;
  const { busy, error, answer } = useAnswer(item);
  const name = `${item.server}.${item.tool ?? '?'}`;
  return (
    <InboxCard
      item={item}
      title={
        <>
          Approve <code>{name}</code>?
        </>
      }
    >
      {item.reason && <p class="inbox-reason">{item.reason}</p>}
      <h3 class="sr-only">Arguments, secrets masked</h3>
      <pre class="code inbox-preview">{item.preview || '(no arguments)'}</pre>
      <ErrorBanner error={error} />
      <div class="actions">
        <button
          type="button"
          class="button-primary"
          disabled={busy}
          onClick={() => answer({ action: 'accept' })}
        >
          Approve
        </button>
        <button type="button" disabled={busy} onClick={() => answer({ action: 'accept', always: true })}>
          Always allow
        </button>
        <DeclineButton busy={busy} onDecline={() => answer({ action: 'decline' })} />
      </div>
    </InboxCard>
  );
}
