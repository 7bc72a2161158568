import type { ApiCallResult } from '../../src/gateway/api/api-types.js';
import type { ApiClient } from '../api/api-client.js';
import { segment } from '../api/api-client.js';
import { createStore } from '../state/store.js';

/** The latest call of a tool from this page: running, or how it ended. */
export interface ToolCall {
  readonly running: boolean;
  readonly result?: ApiCallResult;
  readonly error?: unknown;
}

/**
 * Calls made from the dashboard, by catalog name. They live outside the tool page so that a
 * call waiting for an approval keeps going while the person answers it in the Inbox, and its
 * result is there when they come back.
 */
export const calls = createStore<Readonly<Record<string, ToolCall>>>({});

/** Calls `name` with `args` (`POST /api/tools/{name}/call`), recording the call in `calls`. */
export async function callTool(
  client: ApiClient,
  name: string,
  args: Record<string, unknown>,
): Promise<void> {
  const set = (call: ToolCall) => calls.set((all) => ({ ...all, [name]: call }));
  set({ running: true });
  try {
    set({
      running: false,
      result: await client.post<ApiCallResult>(`/api/tools/${segment(name)}/call`, { arguments: args }),
    });
  } catch (error) {
    set({ running: false, error });
  }
}
