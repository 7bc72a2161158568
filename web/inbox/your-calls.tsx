import { routeHref } from '../shell/routes.js';
import { useStore } from '../state/store.js';
import { calls } from '../tools/calls.js';

/** The calls made from this page, with links back to them: where their results show. */
export function YourCalls() {
  const all = Object.entries(useStore(calls));
  if (all.length === 0) return null;
  return (
    <section class="panel" aria-labelledby="your-calls-title">
      <h2 id="your-calls-title">Your calls</h2>
      <ul>
        {all.map(([name, call]) => (
          <li key={name}>
            <a href={routeHref({ page: 'tools', tool: name })}>{name}</a>{' '}
            <span class="muted" data-testid={`your-call-${name}`}>
              {call.running
                ? 'running'
                : call.cancelled
                  ? 'cancelled'
                  : call.error || call.result?.isError
                    ? 'ended with an error'
                    : 'finished'}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
