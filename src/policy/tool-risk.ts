/**
 * How risky a tool is, from its server's trust and its annotations. Annotations are hints the
 * server gives about itself: from an untrusted server they may only raise the risk (a
 * `destructiveHint` makes a tool dangerous; a `readOnlyHint` is ignored, since a hostile server
 * would claim it), from a trusted one `readOnlyHint` lowers it to read-only. Pure.
 */
export type TrustLevel = 'untrusted' | 'trusted';
export type ToolRisk = 'read_only' | 'exec' | 'dangerous';

export interface ToolAnnotationsLike {
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
}

export function toolRisk(trust: TrustLevel, annotations: ToolAnnotationsLike | undefined): ToolRisk {
  if (annotations?.destructiveHint === true) return 'dangerous';
  if (trust === 'trusted' && annotations?.readOnlyHint === true) return 'read_only';
  return 'exec';
}
