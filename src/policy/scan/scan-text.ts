import { findExfiltrationUrls } from './exfiltration-urls.js';
import type { Finding, ScanContext } from './finding.js';
import { analyzeHidden, hiddenFindings } from './hidden-unicode.js';
import { findInstructionOverrides, mightOverride } from './instruction-override.js';
import { matchingForms, splitIdentifier } from './normalize.js';
import { findRoleMarkers } from './role-markers.js';
import { findToolShadowing } from './tool-shadowing.js';

/** Whether the scanned string is prose (a description) or an identifier (a tool or property name). */
export type TextForm = 'prose' | 'identifier';

function phraseFindings(
  forms: readonly string[],
  where: string,
  context: ScanContext,
  form: TextForm,
): Finding[] {
  const found: Finding[] = [];
  for (const text of forms) {
    found.push(...findInstructionOverrides(text, where));
    if (form === 'identifier') continue;
    found.push(...findRoleMarkers(text, where), ...findExfiltrationUrls(text, where));
    found.push(...findToolShadowing(text, where, context));
  }
  return found;
}

/** Drops repeats (the same detail found in two matching forms of one text). */
export function dedupeFindings(findings: readonly Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    const key = `${f.kind}\u0000${f.where}\u0000${f.detail}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** `scanText` for either form of string; `scanTool` reads names as identifiers. */
export function scanString(text: string, where: string, context: ScanContext, form: TextForm): Finding[] {
  const hidden = analyzeHidden(text);
  const found = hiddenFindings(text, where, hidden);
  // Nothing the phrase detectors look for fits in four characters.
  if (text.length < 5 && !hidden.tagText && !hidden.selectorText) return found;
  // A name is only read for overrides; most names give the detectors nothing to start from.
  if (text.length >= 5 && (form === 'prose' || mightOverride(splitIdentifier(text)))) {
    found.push(
      ...phraseFindings(matchingForms(text, { identifier: form === 'identifier' }), where, context, form),
    );
  }
  // What hidden characters spell is read as if it were visible: that is how a model reads it.
  for (const payload of [hidden.tagText, hidden.selectorText]) {
    if (payload.trim()) {
      const forms = matchingForms(payload, { identifier: false });
      found.push(...phraseFindings(forms, `${where} (hidden text)`, context, 'prose'));
    }
  }
  return found.length > 1 ? dedupeFindings(found) : found;
}

/**
 * Scans one piece of text — a description, a resource's text, a prompt message — for
 * instruction overrides, hidden Unicode, fake role markers, shadowing of other servers' tools
 * and exfiltration URLs. `where` names the piece in the findings. Pure and synchronous; the
 * patterns are compiled once at module load.
 */
export function scanText(text: string, where: string, context: ScanContext = {}): Finding[] {
  return scanString(text, where, context, 'prose');
}
