import type { Inbox, InboxItem } from '../host/inbox/inbox.js';

/**
 * What a one-shot `call` answers itself, for a person who named the call on the command line:
 * with `--yes` the approvals of this invocation are granted (the person typed the call, which
 * is the consent policy asks for), and without a terminal (`noTerminal`) whatever is left, an
 * approval without `--yes` or a server's question (elicitation), is declined at once rather
 * than left to wait out its deadline for nobody. Attached before the terminal prompt, so an
 * item answered here is never put to the terminal too. Being attached counts as a front-end
 * (the host then asks instead of declining by itself), which is why it must answer
 * everything nobody else will. Returns the function that detaches it.
 */
export function answerOneShot(
  inbox: Inbox,
  options: { readonly approve: boolean; readonly noTerminal: boolean },
): () => void {
  const onAdded = (item: InboxItem) => {
    if (item.kind === 'approval' && options.approve) inbox.resolve(item.id, 'accept');
    else if (options.noTerminal) inbox.resolve(item.id, 'decline');
  };
  inbox.on('added', onAdded);
  return () => inbox.off('added', onAdded);
}
