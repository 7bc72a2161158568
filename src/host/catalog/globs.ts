/**
 * Tool include/exclude patterns: `*` matches any run of characters, `?` one character, every
 * other character itself. Compiled once per pattern list.
 */
export type NameFilter = (name: string) => boolean;

function toRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}

/** A filter that keeps names matching `include` (all when empty/absent) and not `exclude`. */
export function compileNameFilter(include?: readonly string[], exclude?: readonly string[]): NameFilter {
  const inc = (include ?? []).map(toRegExp);
  const exc = (exclude ?? []).map(toRegExp);
  return (name) => (inc.length === 0 || inc.some((r) => r.test(name))) && !exc.some((r) => r.test(name));
}
