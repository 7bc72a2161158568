import type { ElicitationHandler } from '../../client/server-requests.js';
import { isSwitchboardError } from '../../core/errors.js';
import type { AskApproval } from '../governance/governor.js';
import type { ElicitationRequest, Inbox, InboxEndReason } from './inbox.js';

/**
 * The Inbox plugged into the two places that wait for a person: a connection's elicitation
 * handler (servers asking for input) and the governor's approval port (calls policy said
 * `ask` for).
 */

export interface InboxElicitationOptions {
  /** How long a person has to answer (default: the Inbox's timeout). */
  readonly timeoutMs?: number;
}

/**
 * An `ElicitationHandler` that queues each elicitation in the Inbox and answers the server
 * with what a person chose: a form becomes an item with the requested schema, URL mode an item
 * with the URL. Accept carries the checked content (forms only) back to the asking server and
 * nowhere else; a timeout declines; the request's signal cancels and removes the item.
 */
export function inboxElicitationHandler(
  inbox: Inbox,
  options: InboxElicitationOptions = {},
): ElicitationHandler {
  return async (params, ctx) => {
    const request: ElicitationRequest =
      params.mode === 'url'
        ? {
            kind: 'elicitation',
            server: ctx.server,
            message: params.message,
            url: params.url,
            elicitationId: params.elicitationId,
          }
        : {
            kind: 'elicitation',
            server: ctx.server,
            message: params.message,
            requestedSchema: params.requestedSchema,
          };
    const answer = await inbox.ask(request, {
      signal: ctx.signal,
      ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    });
    if (answer.action !== 'accept') return { action: answer.action };
    return answer.content === undefined
      ? { action: 'accept' }
      : { action: 'accept', content: answer.content };
  };
}

const REASON_TEXT: Record<Exclude<InboxEndReason, 'user'>, string> = {
  timeout: 'no answer before the deadline',
  aborted: 'the call was aborted while waiting',
  closed: 'the inbox closed',
};

/**
 * The governor's `askApproval` port, answered through the Inbox. A full inbox is a refusal
 * like any other (the call is declined and audited), not an error that skips the audit.
 */
export function inboxApprovalAsker(inbox: Inbox, options: { readonly timeoutMs?: number } = {}): AskApproval {
  return async (request, { signal }) => {
    try {
      const answer = await inbox.ask(
        {
          kind: 'approval',
          server: request.server,
          tool: request.tool,
          session: request.session,
          args: request.args,
          inputSchema: request.inputSchema,
          reason: request.reason,
        },
        {
          ...(signal && { signal }),
          ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
        },
      );
      if (answer.action === 'accept') return { approved: true, always: answer.always };
      if (answer.reason !== 'user') return { approved: false, reason: REASON_TEXT[answer.reason] };
      return {
        approved: false,
        reason: answer.action === 'decline' ? 'declined by a person' : 'cancelled by a person',
      };
    } catch (error) {
      if (isSwitchboardError(error, 'INBOX_FULL')) return { approved: false, reason: 'the inbox is full' };
      throw error;
    }
  };
}

/**
 * Approvals through the Inbox, but only when someone can answer: with no front-end attached
 * (no listener for new items) a call would wait out the whole timeout for nobody, so it is
 * declined at once with a reason that says how to fix it.
 */
export function approvalThroughInbox(inbox: Inbox, timeoutMs: number): AskApproval {
  const ask = inboxApprovalAsker(inbox, { timeoutMs });
  return async (request, options) =>
    !inbox.hasFrontEnd()
      ? {
          approved: false,
          reason:
            'no approver is attached: attach a front-end to host.inbox, add an allow rule, or choose another governance.mode',
        }
      : ask(request, options);
}

/** Elicitations through the Inbox; declined at once when no front-end could answer. */
export function elicitationThroughInbox(inbox: Inbox): ElicitationHandler {
  const handler = inboxElicitationHandler(inbox);
  return async (params, ctx) => (inbox.hasFrontEnd() ? handler(params, ctx) : { action: 'decline' });
}
