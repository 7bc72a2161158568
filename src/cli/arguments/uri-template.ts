/**
 * Whether a URI is an instance of a resource template (MCP "Resources": `uriTemplate` is an
 * RFC 6570 URI Template), to find the server that serves `switchboard read <uri>`. Each
 * expression matches what its operator can expand to (RFC 6570 §3.2): `{var}` one segment,
 * `{+var}` and `{#var}` anything, `{/var}`, `{.var}`, `{;var}`, `{?var}` and `{&var}` their
 * prefixed lists. Literal text must match exactly. Pure.
 */
export function matchesUriTemplate(template: string, uri: string): boolean {
  const pattern = templatePattern(template);
  return pattern?.test(uri) === true;
}

const EXPRESSION = /\{([^{}]*)\}/g;

const OPERATOR_PATTERNS: Readonly<Record<string, string>> = {
  '': '[^/?#]*',
  '+': '.*',
  '#': '(?:#.*)?',
  '/': '(?:/[^/?#]*)*',
  '.': '(?:\\.[^/?#.]*)*',
  ';': '(?:;[^/?#]*)*',
  '?': '(?:\\?[^#]*)?',
  '&': '(?:&[^#]*)?',
};

function templatePattern(template: string): RegExp | undefined {
  let source = '';
  let last = 0;
  for (const match of template.matchAll(EXPRESSION)) {
    source += escapeLiteral(template.slice(last, match.index));
    const body = match[1] ?? '';
    const operator = /^[+#./;?&]/.test(body) ? body[0]! : '';
    source += OPERATOR_PATTERNS[operator];
    last = match.index + match[0].length;
  }
  const rest = template.slice(last);
  // An unclosed brace: not a template we can read.
  if (rest.includes('{') || rest.includes('}')) return undefined;
  source += escapeLiteral(rest);
  return new RegExp(`^${source}$`);
}

function escapeLiteral(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
