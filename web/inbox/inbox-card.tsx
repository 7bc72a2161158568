import type { ComponentChildren } from 'preact';
import type { ApiInboxItem } from '../../src/gateway/api/api-types.js';
import { Deadline } from './deadline.js';

/** The frame every Inbox item is shown in: its title, the time it has left, then its body. */
export function InboxCard(props: {
  readonly item: ApiInboxItem;
  readonly title: ComponentChildren;
  readonly children: ComponentChildren;
}) {
  const { item } = props;
  const titleId = `inbox-${item.id}-title`;
  return (
    <article
      class="card inbox-item"
      aria-labelledby={titleId}
      data-testid={`inbox-item-${item.id}`}
      data-kind={item.kind}
    >
      <header class="card-header">
        <h2 id={titleId}>{props.title}</h2>
        <Deadline deadline={item.deadline} />
      </header>
      {item.replica && (
        <p class="inbox-replica">
          Waiting on the gateway replica <code>{item.replica}</code>
        </p>
      )}
      {props.children}
    </article>
  );
}
