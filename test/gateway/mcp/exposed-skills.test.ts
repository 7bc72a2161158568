import type { Skill } from '@modelcontextprotocol/client/ext/skills';
import { describe, expect, it } from 'vitest';
import {
  exposedSkills,
  hasDotSegment,
  namespacedRoot,
  parseNamespacedUri,
  rebased,
  skillSubject,
} from '../../../src/gateway/mcp/exposed-skills.js';
import { childrenOf, listingAbove, listingFromEntry } from '../../../src/gateway/mcp/skill-directories.js';

/** The served URIs of upstream skills (exposed-skills.ts) and the listings worked out of them. */

const digest = `sha256:${'a'.repeat(64)}`;
function skill(root: string, files: string[] = [], dynamic = false): Skill {
  const name = root.slice(root.lastIndexOf('/') + 1);
  const uri = `${root}/SKILL.md`;
  return {
    uri,
    frontmatter: { name, description: `the ${name} skill` },
    resources: dynamic
      ? 'dynamic'
      : [uri, ...files.map((f) => `${root}/${f}`)].map((u) => ({ uri: u, digest, size: 1 })),
  };
}
const at = (server: string, item: Skill) => ({ server, item });

describe('exposedSkills', () => {
  it('namespaced: the server becomes the first segment; files move with their skill; digests stay', () => {
    const served = exposedSkills([at('docs', skill('skill://pdf', ['refs/A.md']))], 'namespaced');
    const [only] = served.skills;
    expect(only?.skill).toEqual({
      uri: 'skill://docs/pdf/SKILL.md',
      frontmatter: { name: 'pdf', description: 'the pdf skill' },
      resources: [
        { uri: 'skill://docs/pdf/SKILL.md', digest, size: 1 },
        { uri: 'skill://docs/pdf/refs/A.md', digest, size: 1 },
      ],
    });
    expect(served.resolve('skill://docs/pdf/refs/A.md')).toMatchObject({
      server: 'docs',
      uri: 'skill://pdf/refs/A.md',
    });
    expect(served.resolve('skill://docs/pdf/refs/UNLISTED.md')?.uri).toBe('skill://pdf/refs/UNLISTED.md');
    expect(served.resolve('skill://pdf/SKILL.md')).toBeUndefined();
    expect(served.servedUri('docs', 'skill://pdf/SKILL.md')).toBe('skill://docs/pdf/SKILL.md');
    expect(served.servedUri('other', 'skill://pdf/SKILL.md')).toBeUndefined();
  });

  it('passthrough-unique: a folder one server serves keeps its URI; one two serve is namespaced for both', () => {
    const served = exposedSkills(
      [at('a', skill('skill://refunds')), at('b', skill('skill://refunds')), at('b', skill('skill://git'))],
      'passthrough-unique',
    );
    expect(served.skills.map((s) => s.skill.uri)).toEqual([
      'skill://a/refunds/SKILL.md',
      'skill://b/refunds/SKILL.md',
      'skill://git/SKILL.md',
    ]);
  });

  it('passthrough-unique: folders that hold one another across servers are namespaced too', () => {
    const served = exposedSkills(
      [at('a', skill('skill://acme')), at('b', skill('skill://acme/billing/refunds'))],
      'passthrough-unique',
    );
    expect(served.skills.map((s) => s.root)).toEqual(['skill://a/acme', 'skill://b/acme/billing/refunds']);
  });

  it('passthrough-unique: a folder passed through never overlaps a namespaced one, however they chain', () => {
    // a and b both serve skill://x, so both go under their names; c serves skill://a/x, which is
    // now a's namespaced folder, so c goes under its name; d serves skill://c/a/x, then taken too.
    const served = exposedSkills(
      [
        at('a', skill('skill://x')),
        at('b', skill('skill://x')),
        at('c', skill('skill://a/x')),
        at('d', skill('skill://c/a/x')),
        at('e', skill('skill://free')),
      ],
      'passthrough-unique',
    );
    const roots = served.skills.map((s) => s.root);
    expect(roots).toEqual(['skill://a/x', 'skill://b/x', 'skill://c/a/x', 'skill://d/c/a/x', 'skill://free']);
    for (const s of served.skills) expect(served.resolve(`${s.root}/SKILL.md`)?.server).toBe(s.server);
  });

  it('a nested skill of one server resolves to the deepest folder', () => {
    const served = exposedSkills(
      [at('s', skill('skill://outer', ['inner/SKILL.md'])), at('s', skill('skill://outer/inner'))],
      'passthrough-unique',
    );
    expect(served.resolve('skill://outer/inner/x.md')?.skill.original.uri).toBe(
      'skill://outer/inner/SKILL.md',
    );
    expect(served.resolve('skill://outer/y.md')?.skill.original.uri).toBe('skill://outer/SKILL.md');
  });

  it('another scheme is served as a mapped resource URI; the gateway scheme is never passed through', () => {
    const served = exposedSkills(
      [
        at('gh', skill('github://o/r/skills/x')),
        at('evil', skill('switchboard://resource/gh/github://o/r/skills/x')),
      ],
      'passthrough-unique',
    );
    expect(served.skills.map((s) => s.root)).toEqual([
      'github://o/r/skills/x',
      'switchboard://resource/evil/switchboard://resource/gh/github://o/r/skills/x',
    ]);
    expect(namespacedRoot('gh', 'github://o/r/skills/x')).toBe(
      'switchboard://resource/gh/github://o/r/skills/x',
    );
  });

  it('refuses every dot segment, plain or encoded, rather than route it', () => {
    const served = exposedSkills([at('a', skill('skill://p')), at('b', skill('skill://q'))], 'namespaced');
    for (const uri of [
      'skill://a/p/../../b/q/SKILL.md',
      'skill://a/p/%2e%2e/%2E%2E/b/q/SKILL.md',
      'skill://a/p/./SKILL.md',
      'skill://a/p//SKILL.md',
      'skill://a/p/%2fetc',
      'skill://a/p/%zz',
    ])
      expect(served.resolve(uri), uri).toBeUndefined();
    expect(hasDotSegment('skill://a/p/SKILL.md')).toBe(false);
    expect(hasDotSegment('skill://a/p/dir/')).toBe(false);
  });

  it('keeps the first of repeated entries and leaves out one whose files are spelled outside its folder', () => {
    const odd: Skill = {
      ...skill('skill://odd'),
      resources: [{ uri: 'skill://ODD/SKILL.md', digest, size: 1 }],
    };
    const served = exposedSkills(
      [at('a', skill('skill://p')), at('a', skill('skill://p')), at('a', odd)],
      'namespaced',
    );
    expect(served.skills.map((s) => s.original.uri)).toEqual(['skill://p/SKILL.md']);
    expect(rebased(odd, 'skill://odd', 'skill://a/odd')).toBeUndefined();
  });

  it('seeded fuzz: whatever the servers and folders, no two served skills overlap across servers', () => {
    let seed = 2640;
    const next = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    const segments = ['a', 'b', 'x', 'docs', 'lab'];
    for (let round = 0; round < 300; round++) {
      const entries = Array.from({ length: 1 + (next() % 6) }, () => {
        const depth = 1 + (next() % 3);
        const path = Array.from({ length: depth }, () => segments[next() % segments.length]).join('/');
        return at(segments[next() % segments.length]!, skill(`skill://${path}`));
      });
      for (const naming of ['namespaced', 'passthrough-unique'] as const) {
        const served = exposedSkills(entries, naming);
        for (const one of served.skills) {
          for (const other of served.skills) {
            if (one.server === other.server) continue;
            const overlap =
              one.root === other.root ||
              one.root.startsWith(`${other.root}/`) ||
              other.root.startsWith(`${one.root}/`);
            expect(overlap, `${one.server} ${one.root} / ${other.server} ${other.root}`).toBe(false);
          }
          expect(served.resolve(one.skill.uri)).toMatchObject({ server: one.server, uri: one.original.uri });
        }
      }
    }
  });
});

describe('namespaced URIs and subjects', () => {
  it('parses a namespaced URI for a known server only', () => {
    const servers = new Set(['docs', 'a b']);
    expect(parseNamespacedUri('skill://docs/pdf/SKILL.md', servers)).toEqual({
      server: 'docs',
      uri: 'skill://pdf/SKILL.md',
    });
    expect(parseNamespacedUri('skill://a%20b/x/SKILL.md', servers)).toEqual({
      server: 'a b',
      uri: 'skill://x/SKILL.md',
    });
    expect(parseNamespacedUri('skill://other/pdf/SKILL.md', servers)).toBeUndefined();
    expect(parseNamespacedUri('skill://docs', servers)).toBeUndefined();
    expect(parseNamespacedUri('switchboard://resource/docs/gh://x/SKILL.md', servers)).toEqual({
      server: 'docs',
      uri: 'gh://x/SKILL.md',
    });
  });

  it('matches expose globs against server and skill path', () => {
    expect(skillSubject('docs', 'skill://acme/billing/refunds')).toBe('docs/acme/billing/refunds');
    expect(skillSubject('gh', 'github://o/r/x')).toBe('gh/github://o/r/x');
  });
});

describe('directory listings worked out by the gateway', () => {
  it('lists direct children: files once, folders marked, sorted', () => {
    expect(
      childrenOf('skill://p', [
        'skill://p/SKILL.md',
        'skill://p/t/a.md',
        'skill://p/t/b.md',
        'skill://q/x',
        'skill://p/r%20s.md',
      ]),
    ).toEqual([
      { uri: 'skill://p/SKILL.md', name: 'SKILL.md' },
      { uri: 'skill://p/r%20s.md', name: 'r s.md' },
      { uri: 'skill://p/t', name: 't', mimeType: 'inode/directory' },
    ]);
    expect(childrenOf('skill://p/SKILL.md', ['skill://p/SKILL.md'])).toBeUndefined();
  });

  it('lists the folders above served skills, and a skill folder from its entry (not a dynamic one)', () => {
    const served = exposedSkills(
      [
        at('docs', skill('skill://acme/refunds', ['ex/mail.md'])),
        at('docs', skill('skill://live', [], true)),
      ],
      'namespaced',
    );
    expect(listingAbove(served, 'skill://docs')).toEqual([
      { uri: 'skill://docs/acme', name: 'acme', mimeType: 'inode/directory' },
      { uri: 'skill://docs/live', name: 'live', mimeType: 'inode/directory' },
    ]);
    expect(listingFromEntry(served, 'skill://docs/acme/refunds/ex')).toEqual([
      { uri: 'skill://docs/acme/refunds/ex/mail.md', name: 'mail.md' },
    ]);
    expect(listingFromEntry(served, 'skill://docs/live')).toBeUndefined();
    expect(listingAbove(served, 'skill://nowhere')).toBeUndefined();
  });
});
