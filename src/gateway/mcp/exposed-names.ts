import type { Attributed, CatalogTool } from '../../host/catalog/catalog.js';
import { compileNameFilter, type NameFilter } from '../../host/catalog/globs.js';
import { qualifiedToolName } from '../../host/catalog/tool-names.js';

/**
 * The names the gateway serves tools and prompts under. `namespaced` (the default) keeps the
 * catalog's `mcp__<server>__<name>`; `passthrough-unique` serves a name as the upstream wrote
 * it when no other server has the same name, and namespaces only the ones that collide, so a
 * client that knows a server's tools by their own names keeps working. Pure.
 */
export type NamingMode = 'namespaced' | 'passthrough-unique';

/**
 * The filter of one `gateway.expose` list. An empty list exposes nothing (`compileNameFilter`
 * reads an empty include list as "everything", which is right for a server's tool filter and
 * wrong here).
 */
export function exposeFilter(globs: readonly string[]): NameFilter {
  return globs.length === 0 ? () => false : compileNameFilter(globs);
}

/** Served name → catalog tool, in catalog order. */
export function exposedTools(tools: readonly CatalogTool[], mode: NamingMode): Map<string, CatalogTool> {
  const out = new Map<string, CatalogTool>();
  if (mode === 'namespaced') {
    for (const t of tools) out.set(t.name, t);
    return out;
  }
  const count = new Map<string, number>();
  for (const t of tools) count.set(t.tool.name, (count.get(t.tool.name) ?? 0) + 1);
  for (const t of tools) out.set(count.get(t.tool.name) === 1 ? t.tool.name : t.name, t);
  return out;
}

export interface ExposedPrompt<P> {
  readonly server: string;
  readonly prompt: P;
}

/** Served name → prompt and its server, named like tools. */
export function exposedPrompts<P extends { readonly name: string }>(
  prompts: readonly Attributed<P>[],
  mode: NamingMode,
): Map<string, ExposedPrompt<P>> {
  const count = new Map<string, number>();
  for (const p of prompts) count.set(p.item.name, (count.get(p.item.name) ?? 0) + 1);
  const out = new Map<string, ExposedPrompt<P>>();
  for (const p of prompts) {
    const unique = mode === 'passthrough-unique' && count.get(p.item.name) === 1;
    out.set(unique ? p.item.name : qualifiedToolName(p.server, p.item.name), {
      server: p.server,
      prompt: p.item,
    });
  }
  return out;
}
