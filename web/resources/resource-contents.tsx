import type { ApiContent } from '../../src/gateway/api/api-types.js';
import { ContentPart } from '../results/content-part.js';
import { resourcePartView } from './resource-view.js';

/**
 * What reading a resource gave: each of its contents as the result renderers show them, JSON
 * pretty-printed, images and audio inline, other binary contents as a download.
 */
export function ResourceContents(props: { readonly uri: string; readonly contents: readonly ApiContent[] }) {
  return (
    <section
      class="result resource-contents"
      aria-label={`Contents of ${props.uri}`}
      data-testid="resource-contents"
    >
      {props.contents.length === 0 && <p class="muted">The server sent no contents for it.</p>}
      {props.contents.map((part, i) => {
        const view = resourcePartView(part);
        // Contents have no identity but their place.
        return view.kind === 'json' ? (
          <div key={i} class="content-part">
            <p class="content-uri">
              {view.uri && <>{view.uri} · </>}
              {view.mimeType}
            </p>
            <pre class="result-json code" data-testid="result-json">
              {view.text}
            </pre>
          </div>
        ) : (
          <ContentPart key={i} part={view.part} />
        );
      })}
    </section>
  );
}
