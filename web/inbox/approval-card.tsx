import type { ApiInboxItem } from '../../src/gateway/api/api-types.js';
import { ErrorBanner } from '../shell/error-banner.js';
import { Deadline } from './deadline.js';
import { DeclineButton } from './decline-button.js';
import { useAnswer } from './use-answer.js';

/** A tool call waiting for approval: which tool, its arguments (masked), why policy asks. */
export function ApprovalCard(props: { readonly item: ApiInboxItem }) {
  const { item } = props;
  const { busy, error, answer } = useAnswer(item);
  const name = `${item.server}.${item.tool ?? '?'}`;
  const titleId = `inbox-${item.id}-title`;
  return (
    <article
      class="card inbox-item"
      aria-labelledby={titleId}
      data-testid={`inbox-item-${item.id}`}
      data-kind="approval"
    >
      <header class="card-header">
        <h2 id={titleId}>
          Approve <code>{name}</code>?
        </h2>
        <Deadline deadline={item.deadline} />
      </header>
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
    </article>
  );
}
