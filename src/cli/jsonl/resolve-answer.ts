import type { InboxAction, InboxItem } from '../../host/inbox/inbox.js';
import type { ProtocolError } from './messages.js';
import { EXAMPLES, type ResolveRequest } from './requests.js';

/**
 * What a `resolve` request means for the Inbox item it names. Approvals are answered
 * `approve`, `always` (approve, and allow this tool for the rest of the session) or `decline`;
 * elicitations `accept` (with the form's `content`; `content` alone means accept), `decline`
 * or `cancel`. Pure: the Inbox still checks the content against the form.
 */
export interface InboxDecision {
  readonly action: InboxAction;
  readonly content?: Readonly<Record<string, unknown>>;
  readonly always: boolean;
}

export type DecisionOutcome =
  | { readonly ok: true; readonly decision: InboxDecision }
  | { readonly ok: false; readonly error: ProtocolError };

export function decideResolve(
  item: Pick<InboxItem, 'id' | 'kind' | 'mode'>,
  request: Pick<ResolveRequest, 'answer' | 'content'>,
): DecisionOutcome {
  const { answer, content } = request;
  if (item.kind === 'approval') {
    if (content !== undefined)
      return invalid(`item ${item.id} is an approval: it takes an "answer", no "content".`);
    switch (answer) {
      case 'approve':
        return { ok: true, decision: { action: 'accept', always: false } };
      case 'always':
        return { ok: true, decision: { action: 'accept', always: true } };
      case 'decline':
      case 'cancel':
        return { ok: true, decision: { action: answer, always: false } };
      default:
        return invalid(
          `item ${item.id} is an approval: answer "approve", "always" or "decline"` +
            (answer === undefined ? '.' : `, not "${answer}".`),
        );
    }
  }
  const action = answer ?? (content !== undefined ? 'accept' : undefined);
  if (action !== 'accept' && action !== 'decline' && action !== 'cancel') {
    return invalid(
      `item ${item.id} is an elicitation: answer "accept" (with "content" for a form), "decline" or "cancel"` +
        (action === undefined ? '.' : `, not "${action}".`),
    );
  }
  if (content !== undefined && (action !== 'accept' || item.mode === 'url')) {
    const why = item.mode === 'url' ? 'a URL elicitation has no form' : `"${action}" sends nothing back`;
    return invalid(`item ${item.id}: "content" goes only with "accept" on a form; ${why}. Leave it out.`);
  }
  return { ok: true, decision: { action, always: false, ...(content !== undefined && { content }) } };
}

function invalid(problem: string): DecisionOutcome {
  return {
    ok: false,
    error: {
      code: 'INVALID_FIELD',
      message: `resolve: ${problem} Examples: ${EXAMPLES.resolve}, {"op":"resolve","itemId":"…","answer":"accept","content":{"confirm":true}}`,
    },
  };
}
