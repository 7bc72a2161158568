/**
 * What the injection scanner reports. A finding names the kind of manipulation, where in the
 * definition it sits (a readable path such as `inputSchema.properties.path.description`), a
 * short excerpt a person can read (hidden characters shown as `\u{...}` escapes) and the
 * reason in words. Pure data: the scanner decides nothing, `decideScan` turns findings into
 * a verdict under a `ScanPolicy`.
 */
export type FindingKind =
  | 'instruction_override'
  | 'hidden_unicode'
  | 'role_marker'
  | 'tool_shadowing'
  | 'exfiltration_url';

/** One thing the scanner saw; see {@link FindingKind}. */
export interface Finding {
  readonly kind: FindingKind;
  readonly where: string;
  readonly excerpt: string;
  readonly detail: string;
}

/**
 * What the scanner knows beyond the text itself, for tool-shadowing detection: the tools of
 * the catalog (entries of `server` itself are ignored, so the whole catalog may be passed),
 * the server the scanned text comes from and the scanned tool's own name. Without
 * `otherTools` only generic cross-server phrases ("from any server") count as shadowing.
 */
export interface ScanContext {
  readonly otherTools?: readonly { readonly server: string; readonly name: string }[];
  readonly server?: string;
  /** The scanned tool's own name; `scanTool` sets it. */
  readonly tool?: string;
}

/**
 * What to do with a tool that has findings: `block` rejects it with the reason (the default),
 * `warn` keeps it and reports the reason, `off` does not scan.
 */
export type ScanPolicy = 'block' | 'warn' | 'off';

/** Longest excerpt kept in a finding, in UTF-16 units after escaping. */
export const EXCERPT_MAX = 100;

/** Collapses whitespace and cuts `text` to `max` characters with an ellipsis. */
export function clip(text: string, max = EXCERPT_MAX): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  // Never cut a surrogate pair in half.
  const end = /[\uD800-\uDBFF]/.test(flat.charAt(max - 2)) ? max - 2 : max - 1;
  return `${flat.slice(0, end)}…`;
}
