import type { DiscoverResult, VersionNegotiationOptions } from '@modelcontextprotocol/client';
import {
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSIONS,
  type ProtocolMode,
  type TransportConfig,
} from '../core/server-config.js';

/**
 * Protocol-era selection and the per-server verdict cache. `auto` asks `server/discover`
 * once; the answer ("modern" with its discover result, or "legacy") is remembered per server
 * identity so later connects skip the probe. Pure apart from the store the caller supplies.
 */

export type EraVerdict =
  | { readonly kind: 'modern'; readonly discover: DiscoverResult; readonly at: number }
  | { readonly kind: 'legacy'; readonly at: number };

/** Where verdicts are kept. The default is in memory; the host persists them. */
export interface EraVerdictStore {
  get(key: string): EraVerdict | undefined;
  set(key: string, verdict: EraVerdict): void;
  delete(key: string): void;
}

export class MemoryEraVerdictStore implements EraVerdictStore {
  private readonly map = new Map<string, EraVerdict>();
  get(key: string): EraVerdict | undefined {
    return this.map.get(key);
  }
  set(key: string, verdict: EraVerdict): void {
    this.map.set(key, verdict);
  }
  delete(key: string): void {
    this.map.delete(key);
  }
}

/**
 * A legacy verdict goes stale silently (an upgraded server still answers `initialize`), so it
 * is trusted for a day only; a stale modern verdict fails loudly and is dropped then.
 */
export const LEGACY_VERDICT_TTL_MS = 24 * 60 * 60 * 1000;

/** The identity a verdict is cached under: what is started or reached, not the entry name. */
export function serverIdentity(transport: TransportConfig): string {
  if (transport.kind === 'stdio') {
    return JSON.stringify(['stdio', transport.command, transport.args, transport.cwd ?? '']);
  }
  return JSON.stringify([transport.kind, transport.url]);
}

/** What the SDK client is told for one connect attempt. */
export interface EraPlan {
  readonly negotiation: VersionNegotiationOptions;
  /** Versions offered to `initialize` (the first is proposed). */
  readonly supportedVersions: readonly string[];
  /** Cached verdict to skip the probe, when one is fresh. */
  readonly prior?: { kind: 'modern'; discover: DiscoverResult } | { kind: 'legacy' };
  /** The version the user pinned, checked after connect. */
  readonly pinned?: string;
}

/** Plans a connect from the configured mode and any cached verdict. */
export function planEra(
  mode: ProtocolMode,
  cached: EraVerdict | undefined,
  now: number,
  probeTimeoutMs: number,
): EraPlan {
  const all = [...MODERN_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS];
  switch (mode.kind) {
    case 'legacy':
      return { negotiation: { mode: 'legacy' }, supportedVersions: [...LEGACY_PROTOCOL_VERSIONS] };
    case 'modern':
      return { negotiation: { mode: { pin: MODERN_PROTOCOL_VERSIONS[0] } }, supportedVersions: all };
    case 'pinned':
      if ((MODERN_PROTOCOL_VERSIONS as readonly string[]).includes(mode.version)) {
        return { negotiation: { mode: { pin: mode.version } }, supportedVersions: all, pinned: mode.version };
      }
      return { negotiation: { mode: 'legacy' }, supportedVersions: [mode.version], pinned: mode.version };
    case 'auto': {
      const negotiation: VersionNegotiationOptions = { mode: 'auto', probe: { timeoutMs: probeTimeoutMs } };
      if (cached?.kind === 'modern') {
        return { negotiation, supportedVersions: all, prior: { kind: 'modern', discover: cached.discover } };
      }
      if (cached?.kind === 'legacy' && now - cached.at < LEGACY_VERDICT_TTL_MS) {
        return { negotiation, supportedVersions: all, prior: { kind: 'legacy' } };
      }
      return { negotiation, supportedVersions: all };
    }
  }
}

/** True for a 2026-07-28-style revision (no `initialize`). */
export function isModernVersion(version: string | undefined): boolean {
  return version !== undefined && version >= MODERN_PROTOCOL_VERSIONS[MODERN_PROTOCOL_VERSIONS.length - 1]!;
}

/** What a connect that succeeded saw of the server's era. */
export interface ConnectOutcome {
  /** The plan the successful attempt ran (a recovery attempt's, when there was one). */
  readonly plan: EraPlan;
  readonly era: 'modern' | 'legacy';
  readonly discover?: DiscoverResult;
  /** Whether the attempt sent `server/discover`, and whether it got an answer (see transport-tap.ts). */
  readonly probe: 'none' | 'answered' | 'unanswered';
  readonly at: number;
}

/**
 * The verdict a connect teaches, or undefined when it teaches none. Only an answer is a
 * verdict: a discover result (modern), or the server saying it has no `server/discover` (a
 * -32601, an HTTP 400/404/405…; legacy). A probe that timed out (a slow first start, a loaded
 * machine) or a server that exited on it is no answer: the SDK falls back to `initialize` on
 * stdio, and that fallback is right for this connect, but remembering it would pin a server
 * that is merely slow to the old protocol for a day. Nor does a connect from a remembered
 * verdict teach anything new: storing it again would restart its day at every connect.
 */
export function verdictOf(mode: ProtocolMode, outcome: ConnectOutcome): EraVerdict | undefined {
  if (mode.kind !== 'auto' || outcome.plan.prior !== undefined || outcome.probe !== 'answered')
    return undefined;
  if (outcome.era === 'modern') {
    return outcome.discover ? { kind: 'modern', discover: outcome.discover, at: outcome.at } : undefined;
  }
  return { kind: 'legacy', at: outcome.at };
}
