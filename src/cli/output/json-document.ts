/**
 * A `--json` document for an MCP object (a tool as listed, a result as returned): the CLI's
 * conveniences first (`server`, `qualifiedName`, `text`, saved `media` …), then every field of
 * the object they do not name — `_meta`, `content`, `icons`, fields of a newer revision — so a
 * script sees all the server sent. Where both name a key the convenience wins: it holds the
 * same value, made explicit (`null`, `false`) where the server left it out.
 */
export function jsonDocument<C extends object, M extends object>(
  conveniences: C,
  mcpObject: M,
): Omit<M, keyof C> & C {
  const rest = Object.fromEntries(Object.entries(mcpObject).filter(([key]) => !(key in conveniences)));
  return { ...conveniences, ...rest } as Omit<M, keyof C> & C;
}
