import { useId, useState } from 'preact/hooks';

/**
 * Asks for the gateway's access token when the API answered 401, with the API's own word on
 * where the token is (`hint`). The token goes into this tab's sessionStorage only
 * (api/token-store.ts).
 */
export function TokenForm(props: {
  readonly onToken: (token: string) => void;
  readonly rejected: boolean;
  readonly hint?: string;
}) {
  const id = useId();
  const [token, setToken] = useState('');
  return (
    <section class="panel token-form" aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`}>This gateway needs an access token</h1>
      <p>
        Paste the bearer token the gateway was configured with — or, for a gateway without configured
        authentication, its local token, or open the dashboard with the link <code>switchboard start</code>{' '}
        printed. It is kept in this browser tab only, and sent with every request of this dashboard.
      </p>
      {props.hint && <p class="muted">{props.hint}</p>}
      {props.rejected && (
        <p class="banner banner-error" role="alert">
          The gateway did not accept that token. Check it and try again.
        </p>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (token.trim()) props.onToken(token.trim());
        }}
      >
        <label for={id}>Access token</label>
        <input
          id={id}
          type="password"
          autoComplete="off"
          value={token}
          onInput={(e) => setToken(e.currentTarget.value)}
        />
        <button type="submit" class="button-primary">
          Use token
        </button>
      </form>
    </section>
  );
}
