/**
 * The bearer token a person typed for a gateway that wants one. Kept in sessionStorage: it
 * lasts while the tab is open and is never written to disk or shared with other tabs.
 */
const KEY = 'switchboard.token';

/** The saved token, or undefined when there is none (or storage is unavailable). */
export function readToken(): string | undefined {
  try {
    return sessionStorage.getItem(KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

/** Saves `token`, or forgets the saved one when it is undefined. */
export function saveToken(token: string | undefined): void {
  try {
    if (token === undefined) sessionStorage.removeItem(KEY);
    else sessionStorage.setItem(KEY, token);
  } catch {
    // Storage refused (private mode, quota): the token then lasts until the page is reloaded.
  }
}
