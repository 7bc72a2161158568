/**
 * Resource templates (MCP `resources/templates/list`) are RFC 6570 URI templates. The dashboard
 * fills the simplest kind, level 1 (`kitchen://items/{id}`: each `{name}` is one variable,
 * percent-encoded when substituted), which is what servers use almost always. Expressions of
 * the higher levels (`{+path}`, `{?q,lang}`, `{var:3}`, `{list*}`) are reported as such, so the
 * page can let the person type the URI instead of getting it wrong. Pure.
 */

/** One piece of a template: text kept as it is, or a level-1 variable. */
export type TemplatePart =
  | { readonly kind: 'literal'; readonly text: string }
  | { readonly kind: 'variable'; readonly name: string };

/** A URI template taken apart. */
export interface ParsedTemplate {
  readonly parts: readonly TemplatePart[];
  /** The variables, in order of first appearance, each once. */
  readonly variables: readonly string[];
  /** Expressions beyond level 1 (or an unclosed `{`), as written; empty when it can be filled here. */
  readonly unsupported: readonly string[];
}

// RFC 6570 §2.3: varname = varchar *( ["."] varchar ), varchar = ALPHA / DIGIT / "_" / pct-encoded.
const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?:\.(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*$/;

/** Takes `template` apart into literals and level-1 variables (RFC 6570 §2). */
export function parseUriTemplate(template: string): ParsedTemplate {
  const parts: TemplatePart[] = [];
  const variables: string[] = [];
  const unsupported: string[] = [];
  let at = 0;
  while (at < template.length) {
    const open = template.indexOf('{', at);
    if (open === -1) {
      parts.push({ kind: 'literal', text: template.slice(at) });
      break;
    }
    if (open > at) parts.push({ kind: 'literal', text: template.slice(at, open) });
    const close = template.indexOf('}', open);
    if (close === -1) {
      unsupported.push(template.slice(open));
      parts.push({ kind: 'literal', text: template.slice(open) });
      break;
    }
    const expression = template.slice(open + 1, close);
    if (VARNAME.test(expression)) {
      parts.push({ kind: 'variable', name: expression });
      if (!variables.includes(expression)) variables.push(expression);
    } else {
      unsupported.push(template.slice(open, close + 1));
      parts.push({ kind: 'literal', text: template.slice(open, close + 1) });
    }
    at = close + 1;
  }
  return { parts, variables, unsupported };
}

/** How `expandUriTemplate` treats a variable with no value. */
export interface ExpandOptions {
  /**
   * `empty` (the default, as RFC 6570 §3.2.1 has it): it expands to nothing. `keep`: it stays
   * `{name}`, and so does one with an empty value, to show a template half filled in.
   */
  readonly unset?: 'empty' | 'keep';
}

/**
 * The URI `template` stands for with `values`: each variable replaced by its value,
 * percent-encoded so that only RFC 3986 "unreserved" characters stay as they are (RFC 6570
 * §3.2.2, simple string expansion). Unsupported expressions are left as written.
 */
export function expandUriTemplate(
  template: string | ParsedTemplate,
  values: Readonly<Record<string, string | undefined>>,
  options: ExpandOptions = {},
): string {
  const parsed = typeof template === 'string' ? parseUriTemplate(template) : template;
  const keep = options.unset === 'keep';
  return parsed.parts
    .map((part) => {
      if (part.kind === 'literal') return part.text;
      const value = values[part.name];
      if (keep && (value === undefined || value === '')) return `{${part.name}}`;
      return encodeUnreserved(value ?? '');
    })
    .join('');
}

// encodeURIComponent leaves ! ' ( ) * alone; RFC 6570 simple expansion encodes them too.
function encodeUnreserved(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
