import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../api/api-error.js';
import { useApp } from '../shell/app-context.js';

/**
 * The `src` for a saved media file (`/media/<id>.<ext>`): the URL itself when the gateway needs
 * no token, else a `blob:` URL of the bytes fetched with it (an `<img>` cannot send headers).
 */
export function useMediaSource(url: string): { readonly src?: string; readonly error?: string } {
  const { client } = useApp();
  const [state, setState] = useState<{ src?: string; error?: string }>(() =>
    client.hasToken ? {} : { src: url },
  );
  useEffect(() => {
    if (!client.hasToken) {
      setState({ src: url });
      return undefined;
    }
    const controller = new AbortController();
    let release: () => void = () => undefined;
    client.mediaSource(url, controller.signal).then(
      (source) => {
        release = source.release;
        if (controller.signal.aborted) source.release();
        else setState({ src: source.src });
      },
      (error: unknown) => {
        if (!controller.signal.aborted) setState({ error: errorMessage(error) });
      },
    );
    return () => {
      controller.abort();
      release();
    };
  }, [client, url]);
  return state;
}
