/**
 * The dashboard's pages, addressed by the URL's hash (`#/tools/mcp__weather__get_forecast`), so
 * the gateway serves one page for all of them and links work in a new tab. Pure.
 */
export type Route =
  | { readonly page: 'servers' }
  | { readonly page: 'tools'; readonly tool?: string }
  | { readonly page: 'apps' }
  | { readonly page: 'resources' }
  | { readonly page: 'prompts'; readonly server?: string; readonly prompt?: string }
  | { readonly page: 'inbox' }
  | { readonly page: 'logs'; readonly server?: string }
  | { readonly page: 'metrics' }
  | { readonly page: 'events' }
  | { readonly page: 'audit' };

export type Page = Route['page'];

/** The pages in the order the navigation shows them, with their labels. */
export const PAGES: readonly { readonly page: Page; readonly label: string }[] = [
  { page: 'servers', label: 'Servers' },
  { page: 'tools', label: 'Tools' },
  { page: 'resources', label: 'Resources' },
  { page: 'prompts', label: 'Prompts' },
  { page: 'apps', label: 'Apps' },
  { page: 'inbox', label: 'Inbox' },
  { page: 'logs', label: 'Logs' },
  { page: 'metrics', label: 'Metrics' },
  { page: 'events', label: 'Events' },
  { page: 'audit', label: 'Audit' },
];

/** The route a hash names; anything unknown is the servers page. */
export function parseRoute(hash: string): Route {
  const [page = '', ...rest] = hash.replace(/^#\/?/, '').split('/');
  const detail = rest.length > 0 ? decodeSegment(rest.join('/')) : undefined;
  switch (page) {
    case 'tools':
      return detail ? { page, tool: detail } : { page };
    case 'logs':
      return detail ? { page, server: detail } : { page };
    case 'prompts': {
      // Two segments, each encoded on its own: `#/prompts/<server>/<prompt>`.
      const server = rest[0] === undefined ? undefined : decodeSegment(rest[0]);
      const prompt = rest.length > 1 ? decodeSegment(rest.slice(1).join('/')) : undefined;
      return server && prompt ? { page, server, prompt } : { page };
    }
    case 'apps':
    case 'resources':
    case 'inbox':
    case 'metrics':
    case 'events':
    case 'audit':
      return { page };
    default:
      return { page: 'servers' };
  }
}

/** The hash of a route, for links: `#/tools/<name>`, `#/prompts/<server>/<prompt>`. */
export function routeHref(route: Route): string {
  if (route.page === 'prompts' && route.server !== undefined && route.prompt !== undefined)
    return `#/prompts/${encodeURIComponent(route.server)}/${encodeURIComponent(route.prompt)}`;
  const detail = route.page === 'tools' ? route.tool : route.page === 'logs' ? route.server : undefined;
  return detail === undefined ? `#/${route.page}` : `#/${route.page}/${encodeURIComponent(detail)}`;
}

function decodeSegment(text: string): string | undefined {
  try {
    return decodeURIComponent(text) || undefined;
  } catch {
    return undefined;
  }
}
