import type { Skill } from '@modelcontextprotocol/client/ext/skills';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../src/client/connection.js';
import type { LogEntry } from '../../src/client/connection-types.js';
import { MemoryEraVerdictStore } from '../../src/client/era.js';
import { isSwitchboardError, type SwitchboardError } from '../../src/core/errors.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { kitchenSinkBin, skillsLabBin } from '../fixtures/paths.js';

/**
 * The Connection's side of the MCP Skills extension against the skills lab (a real server
 * over stdio whose skills are well-formed and hostile side by side, and which records what it
 * was asked): listing reads no file, every file read is verified, hostile entries and files
 * are refused with the check that failed, and broken pagination ends.
 */

function lab(protocol: 'legacy' | 'modern', args: string[] = [], logs: LogEntry[] = []): Connection {
  return new Connection({
    config: normalizeServerEntry({
      name: 'lab',
      command: process.execPath,
      args: [skillsLabBin, ...args],
      protocol,
    }),
    eraStore: new MemoryEraVerdictStore(),
    listPageCap: 10,
    onLog: (entry) => logs.push(entry),
  });
}

/** What the lab was asked so far (its `skill_reads` tool). */
async function asked(conn: Connection): Promise<string[]> {
  return JSON.parse((await conn.callTool('skill_reads', {})).text) as string[];
}

async function failure(work: Promise<unknown>): Promise<SwitchboardError> {
  try {
    await work;
  } catch (error) {
    if (isSwitchboardError(error)) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

describe.each(['legacy', 'modern'] as const)('skills over stdio, %s era', (protocol) => {
  let conn: Connection;
  const logs: LogEntry[] = [];
  let skills: readonly Skill[];
  const skill = (path: string) => {
    const found = skills.find((s) => s.uri === `skill://${path}/SKILL.md`);
    if (!found) throw new Error(`no skill ${path}`);
    return found;
  };

  beforeAll(async () => {
    conn = lab(protocol, [], logs);
    await conn.connect();
    skills = (await conn.skills.list()).skills;
  });
  afterAll(() => conn.close());

  it('lists the valid skills across pages, refuses the invalid ones with why, and reads no file', async () => {
    expect(conn.skills.supported).toBe(true);
    expect(conn.skills.directoryRead).toBe(true);
    expect(skills.map((s) => s.uri)).toContain('skill://acme/billing/refunds/SKILL.md');
    expect(skills).toHaveLength(12);
    const listing = await conn.skills.list();
    expect(listing.invalid.map((e) => e.uri)).toEqual([
      'skill://escape/SKILL.md',
      'skill://name-mismatch/SKILL.md',
    ]);
    expect(listing.invalid[0]?.reason).toContain('outside the skill directory');
    expect(logs.some((l) => l.level === 'warning' && l.text.includes('2 skill entries refused'))).toBe(true);
    // Lazy retrieval: 14 entries, 5 pages of 3, listed once (the second list() is the cached
    // one), and not one file read.
    expect(await asked(conn)).toEqual(Array(5).fill('skills/list'));
  });

  it('reads a skill and its supporting file, verified, with the parsed frontmatter and body', async () => {
    const pdf = skill('pdf-processing');
    const manifest = await conn.skills.read(pdf);
    expect(manifest.verified).toBe(true);
    expect(manifest.frontmatter).toEqual(pdf.frontmatter);
    expect(manifest.body).toContain('# PDF processing');
    const forms = await conn.skills.read(pdf, 'references/FORMS.md');
    expect(forms).toMatchObject({ uri: 'skill://pdf-processing/references/FORMS.md', verified: true });
    expect(forms.text).toContain('asterisk');
  });

  it.each([
    ['tampered-digest', 'digest'],
    ['wrong-size', 'size'],
    ['frontmatter-mismatch', 'frontmatter'],
    ['broken-yaml', 'frontmatter'],
  ])('refuses %s: SKILL_VERIFICATION_FAILED (%s), content never returned', async (path, reason) => {
    const error = await failure(conn.skills.read(skill(path)));
    expect(error.code).toBe('SKILL_VERIFICATION_FAILED');
    expect(error.details).toMatchObject({ server: 'lab', reason, uri: `skill://${path}/SKILL.md` });
    expect(error.message).toMatch(/failed verification.*fetch its entry again/);
    expect((await asked(conn)).filter((a) => a === `resources/read skill://${path}/SKILL.md`)).toHaveLength(
      1,
    );
  });

  it('names each differing field of a frontmatter mismatch', async () => {
    const error = await failure(conn.skills.read(skill('frontmatter-mismatch')));
    expect(error.details.differences).toEqual([
      'description: the entry has "Summarise the quarterly report", SKILL.md has "Exfiltrate credentials"',
    ]);
  });

  it('refuses a skill over the limits before reading anything of it', async () => {
    const error = await failure(conn.skills.read(skill('huge-skill')));
    expect(error.code).toBe('SKILL_TOO_LARGE');
    expect(error.message).toContain('17825792 bytes');
    expect((await asked(conn)).some((a) => a.includes('huge-skill'))).toBe(false);
  });

  it.each([
    '../tampered-digest/SKILL.md',
    '../../etc/passwd',
    '%2e%2e/git-workflow/SKILL.md',
    'references/../../git-workflow/SKILL.md',
    'skill://git-workflow/SKILL.md',
    'references/UNLISTED.md',
    'file:///etc/passwd',
  ])('refuses the ref %s as unlisted, sending nothing', async (ref) => {
    const before = (await asked(conn)).length;
    const error = await failure(conn.skills.read(skill('pdf-processing'), ref));
    expect(error.code).toBe('SKILL_VERIFICATION_FAILED');
    expect(error.details.reason).toBe('unlisted');
    // Only our own skill_reads call since: no resources/read went out.
    expect((await asked(conn)).slice(before)).toEqual([]);
  });

  it('lists a skill directory; a file is no directory', async () => {
    const children = await conn.skills.readDirectory('skill://pdf-processing/templates');
    expect(children.map((c) => [c.uri, c.mimeType])).toEqual([
      ['skill://pdf-processing/templates/invoice.md', 'text/markdown'],
      ['skill://pdf-processing/templates/regional', 'inode/directory'],
    ]);
    const error = await failure(conn.skills.readDirectory('skill://pdf-processing/SKILL.md'));
    expect(error.code).toBe('NOT_FOUND');
  });

  it('gets one entry by URI; an unknown one is NOT_FOUND', async () => {
    expect(await conn.skills.get('skill://git-workflow/SKILL.md')).toEqual(skill('git-workflow'));
    const error = await failure(conn.skills.get('skill://nowhere/SKILL.md'));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toContain('No skill is served at skill://nowhere/SKILL.md');
  });

  it('reads a dynamic skill unverified', async () => {
    const file = await conn.skills.read(skill('live-report'), 'data/today.md');
    expect(file.verified).toBe(false);
    expect(file.text).toMatch(/^Generated/);
  });

  it('holds no read for a file that changed: the held entry fails, a fresh one reads', async () => {
    const held = skill('pdf-processing');
    const changed = new Promise<void>((resolve) =>
      conn.on('listChanged', (kind) => kind === 'resources' && resolve()),
    );
    await conn.callTool('rotate_forms', {});
    await changed;
    const stale = await failure(conn.skills.read(held, 'references/FORMS.md'));
    expect(stale.details.reason).toBe('digest');
    // The listing was dropped on resources/list_changed: listed again, it has the new digest.
    const fresh = (await conn.skills.list()).skills.find((s) => s.uri === held.uri)!;
    expect(fresh.resources).not.toEqual(held.resources);
    expect(await conn.skills.get(held.uri)).toEqual(fresh);
    expect((await conn.skills.read(fresh, 'references/FORMS.md')).text).toContain('revision 1');
  });
});

describe('skills: a seeded fuzz of refs never reads outside the listed files', () => {
  let conn: Connection;
  beforeAll(async () => {
    conn = lab('modern');
    await conn.connect();
  });
  afterAll(() => conn.close());

  it('400 random refs: each a verified listed file or refused unlisted, and only listed URIs read', async () => {
    const { skills } = await conn.skills.list();
    const pdf = skills.find((s) => s.uri === 'skill://pdf-processing/SKILL.md')!;
    const listed = new Set((pdf.resources as { uri: string }[]).map((r) => r.uri));
    const parts = [
      '..',
      '.',
      '%2e%2e',
      '%2E',
      'references',
      'FORMS.md',
      'templates',
      'SKILL.md',
      '',
      '%2f',
      'a?b',
      '#x',
      '\\',
      'skill:',
      '//host',
    ];
    let seed = 0x2640;
    const next = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    let verified = 0;
    for (let i = 0; i < 400; i++) {
      const ref = Array.from({ length: 1 + (next() % 4) }, () => parts[next() % parts.length]).join('/');
      try {
        const file = await conn.skills.read(pdf, ref);
        expect(listed.has(file.uri)).toBe(true);
        expect(file.verified).toBe(true);
        verified++;
      } catch (error) {
        if (!isSwitchboardError(error, 'SKILL_VERIFICATION_FAILED')) throw error;
        expect(error.details.reason).toBe('unlisted');
      }
    }
    const reads = (await asked(conn)).filter((a) => a.startsWith('resources/read '));
    expect(reads.length).toBe(verified);
    for (const read of reads) expect(listed.has(read.slice('resources/read '.length))).toBe(true);
  });
});

describe('skills: broken pagination ends', () => {
  let conn: Connection | undefined;
  afterEach(async () => {
    await conn?.close();
    conn = undefined;
  });

  it.each([
    ['loop', /handed back a cursor already followed after 3 pages/, 3],
    ['endless', /still had pages after 10/, 10],
  ])(
    'a %s listing fails UPSTREAM_PROTOCOL after a bounded number of pages',
    async (paging, message, pages) => {
      conn = lab('legacy', ['--paging', paging]);
      await conn.connect();
      const error = await failure(conn.skills.list());
      expect(error.code).toBe('UPSTREAM_PROTOCOL');
      expect(error.message).toMatch(message);
      expect(await asked(conn)).toHaveLength(pages);
      // Not kept: the next list asks again (and fails the same way).
      expect((await failure(conn.skills.list())).code).toBe('UPSTREAM_PROTOCOL');
    },
  );
});

describe('skills: a server without the extension', () => {
  let conn: Connection;
  beforeAll(async () => {
    conn = new Connection({
      config: normalizeServerEntry({ name: 'kitchen', command: process.execPath, args: [kitchenSinkBin] }),
      eraStore: new MemoryEraVerdictStore(),
    });
    await conn.connect();
  });
  afterAll(() => conn.close());

  it('has no skills, and asking for one sends nothing and says why', async () => {
    expect(conn.skills.supported).toBe(false);
    expect(await conn.skills.list()).toEqual({ skills: [], invalid: [] });
    const error = await failure(conn.skills.get('skill://x/SKILL.md'));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toContain('does not declare the io.modelcontextprotocol/skills extension');
  });
});
