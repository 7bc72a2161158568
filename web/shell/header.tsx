import { useEffect, useState } from 'preact/hooks';
import { live } from '../live/live-state.js';
import type { StreamStatus } from '../live/stream-status.js';
import { useStore } from '../state/store.js';
import { useNow } from '../state/use-now.js';
import { applyTheme, effectiveTheme } from './theme.js';

/** The top bar: the name, whether live updates flow, and the theme toggle. */
export function Header(props: { readonly principal?: string; readonly version?: string }) {
  const { status } = useStore(live);
  return (
    <header class="app-header">
      <a class="brand" href="#/servers">
        Switchboard
      </a>
      {props.version && <span class="version">v{props.version}</span>}
      <span class="header-spacer" />
      {props.principal && (
        <span class="principal" title="Who the API sees you as">
          {props.principal}
        </span>
      )}
      <ConnectionIndicator status={status} />
      <ThemeToggle />
    </header>
  );
}

function ConnectionIndicator(props: { readonly status: StreamStatus }) {
  const { status } = props;
  const now = useNow(1000, status.state === 'retrying');
  let text: string;
  switch (status.state) {
    case 'open':
      text = 'Live';
      break;
    case 'connecting':
      text = 'Connecting…';
      break;
    case 'retrying':
      text = `Offline, retrying in ${Math.max(0, Math.ceil((status.at - now) / 1000))} s`;
      break;
    case 'unauthorized':
      text = 'Token needed';
      break;
  }
  return (
    <span
      class={`connection connection-${status.state}`}
      data-testid="connection"
      data-state={status.state}
      title={status.state === 'retrying' ? status.error : 'Live updates from the gateway'}
    >
      <span class="connection-dot" aria-hidden="true" />
      {text}
    </span>
  );
}

function ThemeToggle() {
  const [dark, setDark] = useState(() => effectiveTheme() === 'dark');
  // Until the person picks one, the page follows the system's choice as it changes.
  useEffect(() => {
    const query = matchMedia('(prefers-color-scheme: dark)');
    const onChange = () => setDark(effectiveTheme() === 'dark');
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, []);
  return (
    <button
      type="button"
      class="theme-toggle button-quiet"
      aria-pressed={dark}
      onClick={() => {
        applyTheme(dark ? 'light' : 'dark');
        setDark(!dark);
      }}
    >
      Dark theme
    </button>
  );
}
