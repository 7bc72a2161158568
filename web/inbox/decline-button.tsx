/** The Decline button every inbox card ends with. */
export function DeclineButton(props: { readonly busy: boolean; readonly onDecline: () => void }) {
  return (
    <button type="button" class="button-danger" disabled={props.busy} onClick={props.onDecline}>
      Decline
    </button>
  );
}
