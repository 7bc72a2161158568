import type { ApiInboxAnswer, ApiInboxItem } from '../../src/gateway/api/api-types.js';
import { segment } from '../api/api-client.js';
import { dropInboxItem } from '../live/live-state.js';
import { useApp } from '../shell/app-context.js';
import { useAction } from '../shell/use-action.js';

/** Answering one Inbox item: whether an answer is on its way, and the error if it failed. */
export function useAnswer(item: ApiInboxItem): {
  readonly busy: boolean;
  readonly error: unknown;
  readonly answer: (answer: ApiInboxAnswer) => Promise<void>;
} {
  const { client } = useApp();
  const { busy, error, run } = useAction();
  const answer = (body: ApiInboxAnswer) =>
    run(async () => {
      await client.post(`/api/inbox/${segment(item.id)}`, body);
      dropInboxItem(item.id);
    });
  return { busy, error, answer };
}
