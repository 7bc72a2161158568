import { live } from '../live/live-state.js';
import { useStore } from '../state/store.js';
import { PAGES, type Page, routeHref } from './routes.js';

/** The main navigation, with the number of Inbox items waiting (announced as it changes). */
export function Nav(props: { readonly current: Page }) {
  const { inbox } = useStore(live);
  const pending = inbox?.length ?? 0;
  return (
    <nav class="app-nav" aria-label="Main">
      <ul>
        {PAGES.map(({ page, label }) => (
          <li key={page}>
            <a href={routeHref({ page })} aria-current={props.current === page ? 'page' : undefined}>
              {label}
              {page === 'inbox' && (
                <span
                  class={pending > 0 ? 'badge badge-lit' : 'badge'}
                  data-testid="inbox-count"
                  aria-live="polite"
                  aria-atomic="true"
                >
                  {pending}
                  <span class="sr-only"> waiting</span>
                </span>
              )}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
