import { ApiRequestError, errorMessage } from '../api/api-error.js';

/**
 * A failure in words: the API's `error.message` (which says what to do), with its code for
 * anyone reporting it. Announced to screen readers as it appears.
 */
export function ErrorBanner(props: { readonly error: unknown; readonly onDismiss?: () => void }) {
  const { error } = props;
  if (error === undefined || error === null) return null;
  const code = error instanceof ApiRequestError ? error.code : undefined;
  return (
    <div class="banner banner-error" role="alert" data-testid="error-banner">
      <p>
        {errorMessage(error)}
        {code && <span class="banner-code"> ({code})</span>}
      </p>
      {props.onDismiss && (
        <button type="button" class="button-quiet" onClick={props.onDismiss}>
          Dismiss
        </button>
      )}
    </div>
  );
}
