import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ApiSession } from '../../src/gateway/api/api-types.js';
import type { ApiClient } from '../api/api-client.js';

/** What every page needs: the API client and the session it opened. */
export interface AppContextValue {
  readonly client: ApiClient;
  readonly session: ApiSession;
}

export const AppContext = createContext<AppContextValue | undefined>(undefined);

/** The app's client and session; only pages rendered inside the loaded app call it. */
export function useApp(): AppContextValue {
  const value = useContext(AppContext);
  if (!value) throw new Error('useApp() outside the loaded app.');
  return value;
}
