import type { ApiPromptMessage } from '../../src/gateway/api/api-types.js';
import { ContentPart } from '../results/content-part.js';

/** What getting a prompt gave: its description, then each message with its role and content. */
export function PromptMessages(props: {
  readonly description?: string;
  readonly messages: readonly ApiPromptMessage[];
}) {
  const { messages } = props;
  return (
    <section class="result" aria-labelledby="prompt-messages-title" data-testid="prompt-result">
      <h2 id="prompt-messages-title">
        Messages <span class="muted duration">({messages.length})</span>
      </h2>
      {props.description && <p class="prompt-result-description">{props.description}</p>}
      {messages.length === 0 && <p class="muted">The prompt has no messages.</p>}
      <ol class="prompt-messages">
        {messages.map((message, i) => (
          // Messages have no identity but their place.
          <li
            key={i}
            class={`prompt-message prompt-message-${message.role}`}
            data-testid="prompt-message"
            data-role={message.role}
          >
            <p class="prompt-role">{message.role === 'user' ? 'User' : 'Assistant'}</p>
            <ContentPart part={message.content} />
          </li>
        ))}
      </ol>
    </section>
  );
}
