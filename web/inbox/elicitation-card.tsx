import type { ApiInboxItem } from '../../src/gateway/api/api-types.js';
import { SchemaFormView } from '../forms/schema-form-view.js';
import { useSchemaForm } from '../forms/use-schema-form.js';
import { ErrorBanner } from '../shell/error-banner.js';
import { DeclineButton } from './decline-button.js';
import { InboxCard } from './inbox-card.js';
import { useAnswer } from './use-answer.js';

/**
 * A server's question (MCP elicitation): a form generated from its `requestedSchema`, secret
 * fields as password inputs; or, in URL mode, a page to open and then say "Done".
 */
export function ElicitationCard(props: { readonly item: ApiInboxItem }) {
  const { item } = props;
  return (
    <InboxCard
      item={item}
      title={
        <>
          <code>{item.server}</code> asks
        </>
      }
    >
      <p class="inbox-message">{item.preview}</p>
      {item.mode === 'url' ? <UrlAnswer item={item} /> : <FormAnswer item={item} />}
    </InboxCard>
  );
}

function FormAnswer(props: { readonly item: ApiInboxItem }) {
  const { item } = props;
  const form = useSchemaForm(item.requestedSchema ?? { type: 'object', properties: {} }, {
    secretFields: item.secretFields ?? [],
  });
  const { busy, error, answer } = useAnswer(item);
  return (
    <form
      noValidate
      aria-label={`Answer ${item.server}`}
      onSubmit={(event) => {
        event.preventDefault();
        const content = form.collect();
        if (content && !busy) void answer({ action: 'accept', content });
      }}
    >
      <SchemaFormView form={form} allowRaw={false} />
      <ErrorBanner error={error} />
      <div class="actions">
        <button type="submit" class="button-primary" disabled={busy}>
          Submit
        </button>
        <DeclineButton busy={busy} onDecline={() => answer({ action: 'decline' })} />
      </div>
    </form>
  );
}

function UrlAnswer(props: { readonly item: ApiInboxItem }) {
  const { item } = props;
  const { busy, error, answer } = useAnswer(item);
  return (
    <>
      {item.url && webUrl(item.url) && (
        <p>
          <a href={item.url} target="_blank" rel="noopener noreferrer" data-testid="elicitation-url">
            Open {webUrl(item.url)?.host}
          </a>{' '}
          <span class="muted">(in a new tab), then come back and choose Done.</span>
        </p>
      )}
      {item.url && !webUrl(item.url) && (
        <p class="banner banner-error">
          The server sent an address that is not a web page, so it is not opened: <code>{item.url}</code>
        </p>
      )}
      <ErrorBanner error={error} />
      <div class="actions">
        <button
          type="button"
          class="button-primary"
          disabled={busy}
          onClick={() => answer({ action: 'accept' })}
        >
          Done
        </button>
        <DeclineButton busy={busy} onDecline={() => answer({ action: 'decline' })} />
      </div>
    </>
  );
}

/** The URL when it is an http(s) page; anything else (javascript:, file:) is not linked. */
function webUrl(url: string): URL | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed : undefined;
  } catch {
    return undefined;
  }
}
