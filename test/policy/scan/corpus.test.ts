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
 * to sit close to the patterns (each expected to stay clean). All are scanned as one catalog,
 * so tool-shadowing detection sees every server's tools.
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
const otherTools = [...malicious, ...benign].map((e) => ({ server: e.server, name: e.tool.name }));
const scan = (e: Entry) => scanTool(e.tool, { server: e.server, otherTools });

/** Whether a malicious entry was caught as expected; the reason when not. */
function caught(entry: Entry): string | undefined {
  const findings = scan(entry);
  if (findings.length === 0) return 'no findings';
  const kinds = new Set(findings.map((f) => f.kind));
  const missing = (entry.expect ?? []).filter((k) => !kinds.has(k));
  if (missing.length > 0) return `missing ${missing.join(', ')}; got ${summarizeFindings(findings)}`;
  if (entry.where && !findings.some((f) => f.where === entry.where)) {
    return `nothing at ${entry.where}; got ${summarizeFindings(findings)}`;
  }
  return undefined;
}

describe('injection corpus', () => {
  it('is big enough and covers every kind several times', () => {
    expect(malicious.length).toBeGreaterThanOrEqual(45);
    expect(benign.length).toBeGreaterThanOrEqual(45);
    const ids = [...malicious, ...benign].map((e) => e.id);
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
    }
  });

  it.each(malicious.map((e) => [e.id, e] as const))('catches malicious %s', (_id, entry) => {
    expect(caught(entry)).toBeUndefined();
  });

  it.each(benign.map((e) => [e.id, e] as const))('leaves benign %s alone', (_id, entry) => {
    expect(summarizeFindings(scan(entry))).toBe('no findings');
  });

  it('detects every malicious entry with no false positive', () => {
    const detected = malicious.filter((e) => caught(e) === undefined).length;
    const falsePositives = benign.filter((e) => scan(e).length > 0).length;
    const line = `malicious detected ${detected}/${malicious.length}, benign false positives ${falsePositives}/${benign.length}`;
    console.info(line);
    expect(line).toBe(
      `malicious detected ${malicious.length}/${malicious.length}, benign false positives 0/${benign.length}`,
    );
  });
});
