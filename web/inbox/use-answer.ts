import { useState } from 'preact/hooks';
import type { ApiInboxAnswer, ApiInboxItem } from '../../src/gateway/api/api-types.js';
import { segment } from '../api/api-client.js';
import { dropInboxItem } from '../live/live-state.js';
import { useApp } from '../shell/app-context.js';

/** Answering one Inbox item: whether an answer is on its way, and the error if it failed. */
export function useAnswer(item: ApiInboxItem): {
  readonly busy: boolean;
  readonly error: unknown;
  readonly answer: (answer: ApiInboxAnswer) => Promise<void>;
} {
  const { client } = useApp();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const answer = async (body: ApiInboxAnswer) => {
    setBusy(true);
    setError(undefined);
    try {
      await client.post(`/api/inbox/${segment(item.id)}`, body);
      dropInboxItem(item.id);
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };
  return { busy, error, answer };
}
