import type { ApiCallResult } from '../../src/gateway/api/api-types.js';
import type { ApiClient } from '../api/api-client.js';
import { segment } from '../api/api-client.js';
import { createStore } from '../state/store.js';

/** The latest call of a tool from this page: running, or how it ended. */
export interface ToolCall {
  readonly running: boolean;
  readonly result?: ApiCallResult;
  readonly error?: unknown;
  /** The person cancelled it: it has neither a result nor an error. */
  readonly cancelled?: boolean;
}

/**
 * Calls made from the dashboard, by catalog name. They live outside the tool page so that a
 * call waiting for an approval keeps going while the person answers it in the Inbox, and its
 * result is there when they come back.
 */
export const calls = createStore<Readonly<Record<string, ToolCall>>>({});

// The running calls' aborters, by catalog name: not state anything renders, so not in the store.
const running = new Map<string, AbortController>();

/**
 * Calls `name` with `args` (`POST /api/tools/{name}/call`), recording the call in `calls`.
 * `cancelCall(name)` aborts the request; the API then cancels the upstream call (and its Inbox
 * item, if it waits for one), and the call is recorded as cancelled rather than failed.
 */
export async function callTool(
  client: ApiClient,
  name: string,
  args: Record<string, unknown>,
): Promise<void> {
  const controller = new AbortController();
  // A newer call of the same tool replaces this one: whatever this one ends with is not shown.
  const set = (call: ToolCall) => {
    if (running.get(name) === controller) calls.set((all) => ({ ...all, [name]: call }));
  };
  running.get(name)?.abort();
  running.set(name, controller);
  set({ running: true });
  try {
    const result = await client.post<ApiCallResult>(
      `/api/tools/${segment(name)}/call`,
      { arguments: args },
      { signal: controller.signal },
    );
    set({ running: false, result });
  } catch (error) {
    set(controller.signal.aborted ? { running: false, cancelled: true } : { running: false, error });
  } finally {
    if (running.get(name) === controller) running.delete(name);
  }
}

/** Cancels the running call of `name`, if there is one. */
export function cancelCall(name: string): void {
  running.get(name)?.abort();
}
