import type { ApiCallResult } from '../../src/gateway/api/api-types.js';
import { ContentPart } from './content-part.js';

/**
 * A tool's answer: structured content as pretty JSON, then each content part; an error
 * result (`isError`) is styled and labelled as one. Shows how long the call took.
 */
export function CallResult(props: { readonly result: ApiCallResult }) {
  const { result } = props;
  const structured =
    result.structuredContent === undefined ? undefined : JSON.stringify(result.structuredContent);
  return (
    <section
      class={result.isError ? 'result result-error' : 'result'}
      data-testid="call-result"
      data-error={String(result.isError)}
      aria-label={result.isError ? 'Error result' : 'Result'}
    >
      <h2>
        {result.isError ? 'The tool reported an error' : 'Result'}{' '}
        <span class="muted duration" data-testid="call-duration">
          in {formatMs(result.ms)}
        </span>
      </h2>
      {structured !== undefined && (
        <>
          <h3>Structured content</h3>
          <pre class="result-json code" data-testid="result-json">
            {JSON.stringify(result.structuredContent, null, 2)}
          </pre>
        </>
      )}
      {result.content.length > 0 && <h3>Content</h3>}
      {result.content.map((part, i) =>
        // The text copy of structured content (what older clients read) adds nothing: folded.
        part.type === 'text' && structured !== undefined && sameJson(part.text, structured) ? (
          // Parts have no identity but their place.
          <details key={i} class="content-part">
            <summary>Text (the same JSON)</summary>
            <pre class="result-text" data-testid="result-text">
              {part.text}
            </pre>
          </details>
        ) : (
          <ContentPart key={i} part={part} />
        ),
      )}
      {result.content.length === 0 && structured === undefined && <p class="muted">No content.</p>}
    </section>
  );
}

function sameJson(text: string, json: string): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === json;
  } catch {
    return false;
  }
}

/** 840 ms, 2.4 s, 1 min 5 s. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}
