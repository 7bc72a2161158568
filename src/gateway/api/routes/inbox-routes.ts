import type { z } from 'zod';
import { alreadyAnswered, type InboxItem } from '../../../host/inbox/inbox.js';
import { inboxItemJson } from '../../../host/inbox/inbox-item-json.js';
import type { Principal } from '../../http/context.js';
import { ApiProblem } from '../api-errors.js';
import { apiInboxListSchema, apiInboxResolutionSchema, inboxAnswerBody } from '../api-schemas.js';
import type { ApiInboxItem } from '../api-types.js';
import type { DeskItem } from '../inbox-desk.js';
import { type ApiDeps, type ApiRoute, defineRoute, json } from '../route.js';

/**
 * `/api/inbox`: the approvals and elicitations waiting for a person, and answering one. An
 * accepted form is checked against the form's schema by the Inbox (400 when it does not fit,
 * the item left waiting); its content goes to the server that asked and nowhere else. With
 * replicas, the items of every replica are listed, and an answer to another replica's item is
 * relayed to it (inbox-desk.ts): that replica's Inbox takes the first answer; a later one,
 * here or there, is refused with 409 ALREADY_ANSWERED.
 */

/** The routes of `/api/inbox`. */
export function inboxRoutes({ host, inbox }: ApiDeps): ApiRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/inbox',
      tag: 'inbox',
      summary: 'List the pending approvals and elicitations',
      responses: { 200: { description: 'The items, oldest first.', schema: apiInboxListSchema } },
      handle: async ({ caller }) => json({ items: visibleInbox(inbox.items(), caller.principal) }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/inbox/{id}',
      tag: 'inbox',
      summary: 'Answer an approval or elicitation',
      params: { id: 'The item id.' },
      body: inboxAnswerBody,
      responses: { 200: { description: 'How the item was answered.', schema: apiInboxResolutionSchema } },
      handle: async ({ ctx, params, body, caller }) => {
        const id = params.id!;
        const found = inbox.find(id);
        if (!found || !mayAnswer(found.item, caller.principal)) {
          const ended = host.inbox.ended(id);
          if (ended && mayAnswer(ended.item, caller.principal)) throw alreadyAnswered(id, ended.outcome);
          throw new ApiProblem(
            404,
            'NOT_FOUND',
            `No inbox item "${id}" is waiting: it was answered, expired or never existed. GET /api/inbox lists the pending items.`,
            { details: { id } },
          );
        }
        checkAnswerFields(found.item, body);
        if (found.replica !== undefined && inbox.relayAnswer) {
          // Its call waits on another replica: that replica's Inbox takes the answer.
          const text = ctx.body ? Buffer.from(ctx.body).toString('utf8') : '';
          return inbox.relayAnswer(found, ctx.request, text, ctx.signal);
        }
        const always = body.always === true;
        host.inbox.resolveOrThrow(id, body.action, body.content, { always });
        return json({ id, action: body.action, always });
      },
    }),
  ];
}

/**
 * Refuses an answer field the item would not use (400 naming it), rather than report it as
 * applied: `always: true` goes with accepting an approval, `content` with accepting a form
 * elicitation (a URL elicitation is answered in the browser it opens).
 */
export function checkAnswerFields(item: InboxItem, answer: z.output<typeof inboxAnswerBody>): void {
  const refuse = (field: string, problem: string) => {
    throw new ApiProblem(
      400,
      'INVALID_REQUEST',
      `The request body is not valid: field "${field}": ${problem}`,
      {
        details: { field },
      },
    );
  };
  const accepting = answer.action === 'accept';
  const form = item.kind === 'elicitation' && item.mode !== 'url';
  // `always: false` is what every answer means anyway.
  if (answer.always === true && !(accepting && item.kind === 'approval'))
    refuse('always', 'it applies only when accepting an approval. Leave it out.');
  if (answer.content !== undefined && !(accepting && form))
    refuse('content', 'it applies only when accepting a form elicitation (the answers). Leave it out.');
}

/** The items `principal` may see and answer, as the API shows them. */
export function visibleInbox(items: readonly DeskItem[], principal: Principal): ApiInboxItem[] {
  return items.filter(({ item }) => mayAnswer(item, principal)).map(toApiInboxItem);
}

function mayAnswer(item: InboxItem, principal: Principal): boolean {
  return item.kind === 'approval' && item.tool !== undefined
    ? principal.allows(item.server, item.tool)
    : principal.allows(item.server);
}

function toApiInboxItem({ item, replica }: DeskItem): ApiInboxItem {
  // The API's type spells the form schema as plain JSON; the fields are the same.
  const shown = inboxItemJson(item) as ApiInboxItem;
  return replica === undefined ? shown : { ...shown, replica };
}
