import { createHash } from 'node:crypto';
import type { Prompt, Resource, ResourceTemplateType, Tool } from '@modelcontextprotocol/client';
import type { Skill } from '@modelcontextprotocol/client/ext/skills';
import type { Finding, ScanPolicy } from '../../policy/scan/finding.js';
import { scanTool } from '../../policy/scan/scan-tool.js';
import { decideScan } from '../../policy/scan/summary.js';
import { toolDefinitionHash } from './definition-hash.js';
import { compileNameFilter } from './globs.js';
import { checkInputSchema } from './schema-check.js';
import { qualifiedToolName } from './tool-names.js';

/**
 * The catalog: what every connected server offers, under names an agent can use. Pure: lists
 * in, one immutable snapshot out, with the tools that could not be offered and why. A
 * snapshot carries an etag that changes exactly when what it offers changes.
 */

/** What one connected server contributes. */
export interface ServerOffer {
  readonly server: string;
  readonly tools: readonly Tool[];
  readonly resources?: readonly Resource[];
  readonly resourceTemplates?: readonly ResourceTemplateType[];
  readonly prompts?: readonly Prompt[];
  /** Its skills (MCP Skills extension), as its listing has them: entries only, no file read. */
  readonly skills?: readonly Skill[];
  /** Tool name globs (the server's own names) from the entry's `tools.include` / `exclude`. */
  readonly include?: readonly string[];
  readonly exclude?: readonly string[];
  /** A trusted server's suspicious tools are kept with a warning, never rejected. */
  readonly trusted?: boolean;
}

/** How the catalog screens definitions. */
export interface CatalogOptions {
  /** Injection scanning of tool definitions (default `block`). */
  readonly scan?: ScanPolicy;
}

/** A tool kept although the scanner found something in it. */
export interface CatalogWarning {
  readonly server: string;
  readonly tool: string;
  readonly detail: string;
}

export interface CatalogTool {
  /** `mcp__<server>__<tool>`, sanitized. */
  readonly name: string;
  readonly server: string;
  /** The definition as the server sent it (its own name included). */
  readonly tool: Tool;
  /** Fingerprint of the definition, for pinning. */
  readonly hash: string;
}

export type RejectionReason = 'filtered' | 'name_collision' | 'invalid_schema' | 'injection_suspected';

export interface RejectedTool {
  readonly server: string;
  readonly tool: string;
  readonly name: string;
  readonly reason: RejectionReason;
  /** In words, for status output. */
  readonly detail: string;
}

export interface Attributed<T> {
  readonly server: string;
  readonly item: T;
}

export interface CatalogSnapshot {
  readonly tools: readonly CatalogTool[];
  readonly rejected: readonly RejectedTool[];
  /** Tools kept despite scanner findings (scan policy `warn`, or a trusted server). */
  readonly warnings: readonly CatalogWarning[];
  readonly resources: readonly Attributed<Resource>[];
  readonly resourceTemplates: readonly Attributed<ResourceTemplateType>[];
  readonly prompts: readonly Attributed<Prompt>[];
  /** Skills with their server: a skill is the pair of its server and its `SKILL.md` URI. */
  readonly skills: readonly Attributed<Skill>[];
  /** Changes exactly when the offered tools, resources, prompts or skills change. */
  readonly etag: string;
  /** Reverse lookup: catalog name → tool. */
  lookup(name: string): CatalogTool | undefined;
  /**
   * What servers that are reconnecting offered when they were last connected: not served, only
   * consulted when a name is not found, so the answer can say "reconnecting, retry" instead of
   * "unknown" (catalog-keeper.ts). Absent when no such server.
   */
  readonly away?: CatalogSnapshot;
}

// Definitions are long-lived objects (the connection caches its list), so their hashes are too.
const hashes = new WeakMap<Tool, string>();
function hashOf(tool: Tool): string {
  let hash = hashes.get(tool);
  if (hash === undefined) {
    hash = toolDefinitionHash(tool);
    hashes.set(tool, hash);
  }
  return hash;
}

// Scanning is the costly part of a rebuild, and definitions are long-lived objects: findings
// are kept per definition, valid while the catalog's tool names (shadowing context) are the same.
const scans = new WeakMap<Tool, { readonly key: string; readonly findings: readonly Finding[] }>();
function findingsOf(
  tool: Tool,
  server: string,
  otherTools: readonly { server: string; name: string }[],
  key: string,
): readonly Finding[] {
  const cached = scans.get(tool);
  if (cached?.key === key) return cached.findings;
  const findings = scanTool(tool, { server, otherTools });
  scans.set(tool, { key, findings });
  return findings;
}

function namesKey(tools: readonly { server: string; name: string }[]): string {
  const h = createHash('sha256');
  for (const t of tools) h.update(`${t.server}\u0000${t.name}\n`);
  return h.digest('hex');
}

export function buildCatalog(
  offers: readonly ServerOffer[],
  options: CatalogOptions & { readonly away?: CatalogSnapshot } = {},
): CatalogSnapshot {
  const rejected: RejectedTool[] = [];
  const warnings: CatalogWarning[] = [];
  const candidates: CatalogTool[] = [];
  const scan = options.scan ?? 'block';
  const everyTool =
    scan === 'off' ? [] : offers.flatMap((o) => o.tools.map((t) => ({ server: o.server, name: t.name })));
  const everyToolKey = scan === 'off' ? '' : namesKey(everyTool);
  for (const offer of [...offers].sort((a, b) => (a.server < b.server ? -1 : a.server > b.server ? 1 : 0))) {
    const keep = compileNameFilter(offer.include, offer.exclude);
    for (const tool of offer.tools) {
      const name = qualifiedToolName(offer.server, tool.name);
      const base = { server: offer.server, tool: tool.name, name };
      if (!keep(tool.name)) {
        rejected.push({
          ...base,
          reason: 'filtered',
          detail: "removed by the entry's tools.include / tools.exclude",
        });
        continue;
      }
      const problem = checkInputSchema(tool.inputSchema);
      if (problem) {
        rejected.push({ ...base, reason: 'invalid_schema', detail: problem });
        continue;
      }
      if (scan !== 'off') {
        const findings = findingsOf(tool, offer.server, everyTool, everyToolKey);
        const verdict = decideScan(findings, offer.trusted ? 'warn' : scan);
        if (verdict.action === 'block') {
          rejected.push({ ...base, reason: 'injection_suspected', detail: verdict.reason });
          continue;
        }
        if (verdict.action === 'warn')
          warnings.push({ server: offer.server, tool: tool.name, detail: verdict.reason });
      }
      candidates.push({ name, server: offer.server, tool, hash: hashOf(tool) });
    }
  }
  // Two tools that sanitize to one name cannot both be offered, and picking one would depend
  // on which servers exist: both sides are rejected.
  const byName = new Map<string, CatalogTool[]>();
  for (const c of candidates) {
    const same = byName.get(c.name);
    if (same) same.push(c);
    else byName.set(c.name, [c]);
  }
  const tools: CatalogTool[] = [];
  const index = new Map<string, CatalogTool>();
  for (const [name, group] of byName) {
    if (group.length === 1) {
      tools.push(group[0]!);
      index.set(name, group[0]!);
      continue;
    }
    const who = group.map((g) => `${g.server}/${g.tool.name}`).join(', ');
    for (const g of group) {
      rejected.push({
        server: g.server,
        tool: g.tool.name,
        name,
        reason: 'name_collision',
        detail: `"${name}" is the name of more than one tool (${who}); rename a server or exclude one of them`,
      });
    }
  }
  // Servers in name order, each server's tools in the order it listed them: the upstream's
  // order is part of what it says (clients show tools in that order; the first is often the main one).
  const attribute = <T>(pick: (o: ServerOffer) => readonly T[] | undefined) =>
    offers.flatMap((o) => (pick(o) ?? []).map((item) => ({ server: o.server, item })));
  const resources = attribute((o) => o.resources);
  const resourceTemplates = attribute((o) => o.resourceTemplates);
  const prompts = attribute((o) => o.prompts);
  const skills = attribute((o) => o.skills);
  return {
    tools,
    rejected,
    warnings,
    resources,
    resourceTemplates,
    prompts,
    skills,
    etag: etagOf(tools, resources, resourceTemplates, prompts, skills),
    lookup: (name) => index.get(name),
    ...(options.away && { away: options.away }),
  };
}

function etagOf(
  tools: readonly CatalogTool[],
  resources: readonly Attributed<Resource>[],
  templates: readonly Attributed<ResourceTemplateType>[],
  prompts: readonly Attributed<Prompt>[],
  skills: readonly Attributed<Skill>[],
): string {
  const h = createHash('sha256');
  for (const t of tools) h.update(`t\u0000${t.name}\u0000${t.hash}\n`);
  for (const r of resources) h.update(`r\u0000${r.server}\u0000${r.item.uri}\u0000${r.item.name}\n`);
  for (const r of templates) h.update(`u\u0000${r.server}\u0000${r.item.uriTemplate}\n`);
  for (const p of prompts)
    h.update(`p\u0000${p.server}\u0000${p.item.name}\u0000${JSON.stringify(p.item.arguments ?? [])}\n`);
  // A skill changes with its frontmatter or any file's digest, not only its URI.
  for (const s of skills)
    h.update(
      `s\u0000${s.server}\u0000${s.item.uri}\u0000${JSON.stringify([s.item.frontmatter, s.item.resources])}\n`,
    );
  return h.digest('hex').slice(0, 16);
}
