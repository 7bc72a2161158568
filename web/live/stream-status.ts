/** Where a followed stream is: open, (re)connecting, waiting to retry, or stopped for a token. */
export type StreamStatus =
  | { readonly state: 'connecting' }
  | { readonly state: 'open' }
  | { readonly state: 'retrying'; readonly at: number; readonly error: string }
  | { readonly state: 'unauthorized' };
