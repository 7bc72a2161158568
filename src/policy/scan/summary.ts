import type { Finding, FindingKind, ScanPolicy } from './finding.js';

const LABELS: Record<FindingKind, string> = {
  instruction_override: 'instruction override',
  hidden_unicode: 'hidden Unicode',
  role_marker: 'fake role marker',
  tool_shadowing: 'tool shadowing',
  exfiltration_url: 'exfiltration URL',
};
/** Findings spelled out in a summary; the rest are counted. */
const SHOWN = 4;

function quote(excerpt: string): string {
  return `'${excerpt.replace(/[\r\n]+/g, ' ').replace(/'/g, '’')}'`;
}

/**
 * One line for people (and logs, and a rejection reason) naming each finding, for example
 * "hidden Unicode in description (U+E0041… tag characters (38), spelling 'Ignore…');
 * instruction override in inputSchema.properties.x.description: 'ignore all previous
 * instructions'". The first few are spelled out, the rest counted.
 */
export function summarizeFindings(findings: readonly Finding[]): string {
  if (findings.length === 0) return 'no findings';
  const parts = findings
    .slice(0, SHOWN)
    .map((f) =>
      f.kind === 'hidden_unicode'
        ? `${LABELS[f.kind]} in ${f.where} (${f.detail})`
        : `${LABELS[f.kind]} in ${f.where}: ${quote(f.excerpt)} (${f.detail})`,
    );
  const more = findings.length - SHOWN;
  return more > 0 ? `${parts.join('; ')}; and ${more} more` : parts.join('; ');
}

/** What happens to a scanned tool, and why in words. */
export interface ScanDecision {
  readonly action: 'allow' | 'warn' | 'block';
  readonly reason: string;
}

/**
 * Applies a {@link ScanPolicy} to a tool's findings: no findings (or `off`) allows, `warn`
 * keeps the tool with the reason, `block` (the default) rejects it with the reason and what a
 * person can do about it.
 */
export function decideScan(findings: readonly Finding[], policy: ScanPolicy = 'block'): ScanDecision {
  if (policy === 'off') return { action: 'allow', reason: 'injection scanning is off' };
  if (findings.length === 0) return { action: 'allow', reason: 'no injection patterns found' };
  const summary = summarizeFindings(findings);
  if (policy === 'warn') return { action: 'warn', reason: `kept despite ${summary}` };
  return {
    action: 'block',
    reason: `rejected: ${summary}; review the server's definition, or set its scan policy to "warn" to keep the tool`,
  };
}
