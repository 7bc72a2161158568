import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  type FindingKind,
  scanTool,
  summarizeFindings,
  type ToolDefinitionLike,
} from '../../../src/policy/index.js';

/**
 * The injection corpus: tool definitions in the style of published MCP servers, malicious ones
 * (each expected to be caught, with the kinds and the place it names) and benign ones written
 * to sit close to the patterns (each expected to stay clean). It has two parts:
 *
 * - the tuning part (`benign.json`, `malicious.json`): the scanner is tuned on it, so every
 *   entry is held to its label;
 * - the held-out part (`heldout-*.json`): written before the scanner was last tuned and never
 *   used to change it — a labelled set one tunes on is not a measurement. Its figures are
 *   printed and held only to a floor; a held-out entry that fails is not a reason to change a
 *   pattern (write a new tuning entry for the class instead, and a new held-out part).
 *
 * Each part is scanned as one catalog (the held-out part together with the tuning part), so
 * tool-shadowing detection sees every server's tools.
 */
interface Entry {
  readonly id: string;
  readonly note: string;
  readonly server: string;
  readonly tool: ToolDefinitionLike;
  readonly expect?: readonly FindingKind[];
  readonly where?: string;
}

const dir = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/injection-corpus');
const load = (name: string): Entry[] =>
  JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as Entry[];
const malicious = load('malicious');
const benign = load('benign');
const heldMalicious = load('heldout-malicious');
const heldBenign = load('heldout-benign');
const names = (entries: readonly Entry[]) => entries.map((e) => ({ server: e.server, name: e.tool.name }));
const tuningCatalog = names([...malicious, ...benign]);
const heldCatalog = names([...malicious, ...benign, ...heldMalicious, ...heldBenign]);
const scanIn = (catalog: readonly { server: string; name: string }[]) => (e: Entry) =>
  scanTool(e.tool, { server: e.server, otherTools: catalog });
const scan = scanIn(tuningCatalog);
const scanHeld = scanIn(heldCatalog);

/** Whether a malicious entry was caught as expected; the reason when not. */
function caught(entry: Entry, scanOne = scan): string | undefined {
  const findings = scanOne(entry);
  if (findings.length === 0) return 'no findings';
  const kinds = new Set(findings.map((f) => f.kind));
  const missing = (entry.expect ?? []).filter((k) => !kinds.has(k));
  if (missing.length > 0) return `missing ${missing.join(', ')}; got ${summarizeFindings(findings)}`;
  if (entry.where && !findings.some((f) => f.where === entry.where)) {
    return `nothing at ${entry.where}; got ${summarizeFindings(findings)}`;
  }
  return undefined;
}

/** A part's figures: detection (caught as labelled), false positives, precision over any finding. */
interface Figures {
  readonly detected: number;
  readonly flagged: number;
  readonly malicious: number;
  readonly falsePositives: number;
  readonly benign: number;
}

function measure(bad: readonly Entry[], good: readonly Entry[], scanOne: typeof scan): Figures {
  return {
    detected: bad.filter((e) => caught(e, scanOne) === undefined).length,
    flagged: bad.filter((e) => scanOne(e).length > 0).length,
    malicious: bad.length,
    falsePositives: good.filter((e) => scanOne(e).length > 0).length,
    benign: good.length,
  };
}

const pct = (n: number, of: number) => `${((100 * n) / Math.max(1, of)).toFixed(1)}%`;
function describeFigures(part: string, f: Figures): string {
  const precision = pct(f.flagged, f.flagged + f.falsePositives);
  return (
    `${part}: detected ${f.detected}/${f.malicious} (${pct(f.detected, f.malicious)}), ` +
    `flagged ${f.flagged}/${f.malicious}, false positives ${f.falsePositives}/${f.benign} ` +
    `(${pct(f.falsePositives, f.benign)}), precision ${precision}`
  );
}

describe('injection corpus', () => {
  it('is big enough and covers every kind several times', () => {
    expect(malicious.length).toBeGreaterThanOrEqual(45);
    expect(benign.length).toBeGreaterThanOrEqual(45);
    expect(heldMalicious.length).toBeGreaterThanOrEqual(60);
    expect(heldBenign.length).toBeGreaterThanOrEqual(120);
    const ids = [...malicious, ...benign, ...heldMalicious, ...heldBenign].map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    const kinds: FindingKind[] = [
      'instruction_override',
      'hidden_unicode',
      'role_marker',
      'tool_shadowing',
      'exfiltration_url',
    ];
    for (const kind of kinds) {
      expect(malicious.filter((e) => e.expect?.includes(kind)).length, kind).toBeGreaterThanOrEqual(5);
      expect(heldMalicious.filter((e) => e.expect?.includes(kind)).length, kind).toBeGreaterThanOrEqual(2);
    }
  });

  it.each(malicious.map((e) => [e.id, e] as const))('catches malicious %s', (_id, entry) => {
    expect(caught(entry)).toBeUndefined();
  });

  it.each(benign.map((e) => [e.id, e] as const))('leaves benign %s alone', (_id, entry) => {
    expect(summarizeFindings(scan(entry))).toBe('no findings');
  });

  it('detects every tuning malicious entry with no false positive', () => {
    const figures = measure(malicious, benign, scan);
    console.info(describeFigures('tuning', figures));
    expect(figures).toMatchObject({
      detected: malicious.length,
      falsePositives: 0,
    });
  });

  it('measures the held-out part', () => {
    const figures = measure(heldMalicious, heldBenign, scanHeld);
    console.info(describeFigures('held-out', figures));
    // Floors set before the held-out part was first measured, and not moved after: at least
    // 75% of its malicious entries caught as labelled, at most 5% of its benign ones flagged.
    expect(figures.detected / figures.malicious).toBeGreaterThanOrEqual(0.75);
    expect(figures.falsePositives / figures.benign).toBeLessThanOrEqual(0.05);
  });
});
