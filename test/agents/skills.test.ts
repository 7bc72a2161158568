import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentSession } from '../../src/agents/session.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { Host } from '../../src/host/host.js';
import { conformanceUpstreamBin, skillsLabBin } from '../fixtures/paths.js';
import { eventually } from '../helpers/wait.js';

/**
 * Skills for an agent, end to end: a real Host with the skills lab (untrusted, well-formed and
 * hostile skills side by side, and a record of what it was asked) and the conformance fixture
 * (trusted), an AgentSession, and the `mcp_skills` meta-tool as a model would call it.
 */

let dataDir: string;
let host: Host;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sb-agent-skills-'));
  host = await Host.create({
    dataDir,
    governance: { mode: 'full-auto' },
    servers: [
      normalizeServerEntry({
        name: 'lab',
        command: process.execPath,
        args: [skillsLabBin],
        deferral: 'eager',
      }),
      normalizeServerEntry({
        name: 'conf',
        command: process.execPath,
        args: [conformanceUpstreamBin],
        trust: 'trusted',
      }),
      normalizeServerEntry({
        name: 'quiet',
        command: process.execPath,
        args: [skillsLabBin],
        deferral: 'hidden',
      }),
    ],
  });
  await eventually(
    () => new Set(host.skills.list().map((s) => s.server)).size,
    (n) => n === 3,
    { what: 'the skills of all three servers in the catalog' },
  );
});

afterAll(async () => {
  await host?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** What the lab was asked so far. */
async function labAsked(): Promise<string[]> {
  const result = await host.callTool('mcp__lab__skill_reads', {});
  return JSON.parse(result.text) as string[];
}

const text = (outcome: { text: string }) => outcome.text;

describe('skills for an agent', () => {
  it('offers mcp_skills and lists skills in the system prompt, with their servers; nothing read', async () => {
    const session = AgentSession.open(host, 'lister');
    expect((await session.tools()).map((t) => t.name)).toContain('mcp_skills');
    const prompt = await session.systemPrompt('<!-- MCP_LIST -->');
    expect(prompt).toContain('## MCP skills');
    expect(prompt).toContain('- pdf-processing (server lab) — Extract, fill, and assemble PDF documents');
    expect(prompt).toContain('- pdf-processing (server conf)');
    expect(prompt).not.toContain('server quiet');
    const listed = await session.execute('mcp_skills', {});
    if (listed.result.kind !== 'json') throw new Error('expected a JSON listing');
    const { skills } = listed.result.json as { skills: { server: string; skill: string }[] };
    expect(skills.some((s) => s.server === 'quiet')).toBe(false);
    expect(
      skills
        .filter((s) => s.skill === 'pdf-processing')
        .map((s) => s.server)
        .sort(),
    ).toEqual(['conf', 'lab']);
    expect((await labAsked()).filter((a) => a.startsWith('resources/read'))).toEqual([]);
  });

  it('loads a skill: verified, tagged with its server, files listed; then reads a file of it', async () => {
    const session = AgentSession.open(host, 'loader');
    const loaded = await session.execute('mcp_skills', { skill: 'pdf-processing', server: 'lab' });
    expect(loaded.result.isError).toBeFalsy();
    expect(text(loaded)).toMatch(/^Skill "pdf-processing" \(pdf-processing\) from MCP server "lab"/);
    expect(text(loaded)).toContain('verified against its entry');
    expect(text(loaded)).toContain(
      'references/FORMS.md, templates/invoice.md, templates/regional/eu-invoice.md',
    );
    expect(text(loaded)).toContain('# PDF processing');
    const file = await session.execute('mcp_skills', {
      skill: 'pdf-processing',
      server: 'lab',
      file: 'templates/regional/eu-invoice.md',
    });
    expect(text(file)).toContain('VAT: {{vat}}');
    const { entries } = await host.audit({ limit: 20 });
    expect(entries.find((e) => e.action === 'skill_load' && e.actor === 'loader')?.server).toBe('lab');
    expect(entries.find((e) => e.action === 'skill_read' && e.actor === 'loader')?.outcome).toBe('ok');
  });

  it('asks for a server when two skills share a name, and tells a file read before the load to load first', async () => {
    const session = AgentSession.open(host, 'picky');
    const ambiguous = await session.execute('mcp_skills', { skill: 'refunds' });
    expect(ambiguous.result.isError).toBe(true);
    expect(text(ambiguous)).toContain('"team-a/refunds" of server lab');
    expect(text(ambiguous)).toContain('"acme/billing/refunds" of server conf');
    const early = await session.execute('mcp_skills', { skill: 'team-a/refunds', file: 'SKILL.md' });
    expect(text(early)).toBe(
      'Load the skill first: mcp_skills {"skill": "team-a/refunds", "server": "lab"}.',
    );
  });

  it('refuses a tampered skill, a file outside the skill, and a skill over the limits', async () => {
    const session = AgentSession.open(host, 'wary');
    const tampered = await session.execute('mcp_skills', { skill: 'tampered-digest' });
    expect(tampered.result.isError).toBe(true);
    expect(text(tampered)).toMatch(/^SKILL_VERIFICATION_FAILED: .*digest/);
    expect(text(tampered)).not.toContain('Evil body');
    const huge = await session.execute('mcp_skills', { skill: 'huge-skill' });
    expect(text(huge)).toMatch(/^SKILL_TOO_LARGE/);
    await session.execute('mcp_skills', { skill: 'git-workflow', server: 'lab' });
    const before = (await labAsked()).length;
    for (const file of [
      '../pdf-processing/SKILL.md',
      '%2e%2e/tampered-digest/SKILL.md',
      'skill://sneaky/SKILL.md',
    ]) {
      const out = await session.execute('mcp_skills', { skill: 'git-workflow', server: 'lab', file });
      expect(out.result.isError, file).toBe(true);
      expect(text(out)).toBe(
        `${file} is not a file of skill "git-workflow": read one of the files its load listed.`,
      );
    }
    // Refused before anything was sent: the lab saw only this test's own skill_reads calls.
    expect((await labAsked()).slice(before).filter((a) => a.startsWith('resources/read'))).toEqual([]);
  });

  it('guards an untrusted skill that tells the model to ignore its instructions, and honours no allowed-tools', async () => {
    const session = AgentSession.open(host, 'guarded');
    const out = await session.execute('mcp_skills', { skill: 'sneaky' });
    expect(text(out)).toContain('[UNTRUSTED DATA');
    expect(text(out)).toContain('its allowed-tools field is not honoured');
    // A trusted server's skill comes as it is.
    const trusted = await session.execute('mcp_skills', { skill: 'git-workflow', server: 'conf' });
    expect(text(trusted)).not.toContain('[UNTRUSTED DATA');
  });

  it('a file changed since the load fails; loading again picks up the new entry', async () => {
    const session = AgentSession.open(host, 'stale');
    await session.execute('mcp_skills', { skill: 'pdf-processing', server: 'lab' });
    const etag = host.catalog().etag;
    await host.callTool('mcp__lab__rotate_forms', {});
    const stale = await session.execute('mcp_skills', {
      skill: 'pdf-processing',
      server: 'lab',
      file: 'references/FORMS.md',
    });
    expect(stale.result.isError).toBe(true);
    expect(text(stale)).toContain('changed on server lab');
    expect(text(stale)).not.toContain('revision');
    // Loaded again (with the catalog's new entry, or the server's current one fetched on a
    // mismatch), the file reads.
    await eventually(
      () => host.catalog().etag,
      (now) => now !== etag,
      { what: 'the catalog to see the rotated skill' },
    );
    await session.execute('mcp_skills', { skill: 'pdf-processing', server: 'lab' });
    const fresh = await session.execute('mcp_skills', {
      skill: 'pdf-processing',
      server: 'lab',
      file: 'references/FORMS.md',
    });
    expect(text(fresh)).toContain('revision 1');
  });

  it('ends the acting window with the frame: a sub-agent must load again', async () => {
    const root = AgentSession.open(host, 'frames');
    const sub = root.subAgent('worker');
    await sub.execute('mcp_skills', { skill: 'git-workflow', server: 'conf' });
    const read = () => sub.execute('mcp_skills', { skill: 'git-workflow', server: 'conf', file: 'SKILL.md' });
    expect((await read()).result.isError).toBeFalsy();
    // The root never loaded it.
    const rootRead = await root.execute('mcp_skills', {
      skill: 'git-workflow',
      server: 'conf',
      file: 'SKILL.md',
    });
    expect(text(rootRead)).toMatch(/^Load the skill first/);
    await sub.end();
    expect(text(await read())).toMatch(/^Load the skill first/);
  });
});
