import type { ApiLogLine } from '../../src/gateway/api/api-types.js';

const LEVELS = new Set([
  'error',
  'warn',
  'warning',
  'info',
  'notice',
  'debug',
  'critical',
  'alert',
  'emergency',
]);

/** Log lines, each coloured by its level (known levels only; the rest look plain). */
export function LogLines(props: { readonly lines: readonly ApiLogLine[] }) {
  return (
    <ol class="log-lines" data-testid="log-lines">
      {props.lines.map((line, i) => {
        const level = line.level?.toLowerCase();
        return (
          // Lines only ever append, so a line's place is a stable key.
          <li
            key={i}
            class={`log-line ${level && LEVELS.has(level) ? `log-level-${level}` : ''}`}
            data-testid="log-line"
          >
            {line.at && <time class="log-at">{shortTime(line.at)}</time>}
            {line.source && <span class="log-source">{line.source}</span>}
            {line.level && <span class="log-level">{line.level}</span>}
            <span class="log-text">{line.text}</span>
          </li>
        );
      })}
    </ol>
  );
}

function shortTime(at: string): string {
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? at : date.toLocaleTimeString();
}
