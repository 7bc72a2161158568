/**
 * What serving upstream skills costs the gateway, against serving as many upstream resources
 * (the baseline, measured in the same run): working out the served URIs of a catalog snapshot
 * (once per snapshot and view), and resolving a read's URI (every `resources/read` asks the
 * skills first). Skills spread over 20 servers, one in four shared by two servers (so they
 * are namespaced), three levels of folders, 4 files each. Medians of 7 rounds.
 *
 *   npm run bench:skills
 */
import type { Resource } from '@modelcontextprotocol/client';
import type { Skill } from '@modelcontextprotocol/client/ext/skills';
import { exposedResources } from '../src/gateway/mcp/exposed-resources.js';
import { exposedSkills } from '../src/gateway/mcp/exposed-skills.js';
import type { Attributed } from '../src/host/catalog/catalog.js';
import { fmt, median } from './stats.js';

const SERVERS = 20;
const ROUNDS = 7;
const RESOLVES = 20_000;
const digest = `sha256:${'0'.repeat(64)}`;

function catalog(n: number): { skills: Attributed<Skill>[]; resources: Attributed<Resource>[] } {
  const skills: Attributed<Skill>[] = [];
  const resources: Attributed<Resource>[] = [];
  for (let i = 0; i < n; i++) {
    const server = `server-${i % SERVERS}`;
    // One in four is served by two servers: the same folder under two names.
    const path =
      i % 4 === 0
        ? `team-${i % 7}/area-${(i >> 2) % 50}/shared-${i >> 3}`
        : `team-${i % 7}/area-${i % 50}/skill-${i}`;
    const root = `skill://${path}`;
    const files = ['SKILL.md', 'references/A.md', 'templates/b.md', 'templates/x/c.md'].map(
      (f) => `${root}/${f}`,
    );
    skills.push({
      server,
      item: {
        uri: files[0]!,
        frontmatter: { name: path.slice(path.lastIndexOf('/') + 1), description: 'bench' },
        resources: files.map((uri) => ({ uri, digest, size: 10 })),
      },
    });
    for (const uri of files) resources.push({ server, item: { uri, name: uri } });
  }
  return { skills, resources };
}

function time(fn: () => void): number {
  const started = performance.now();
  fn();
  return performance.now() - started;
}

console.log(
  'skills  files  build skills ms  build resources ms  ratio  resolve skill µs  resolve resource µs  ratio',
);
for (const n of [100, 1_000, 5_000]) {
  const { skills, resources } = catalog(n);
  const build = { skills: [] as number[], resources: [] as number[] };
  const resolve = { skills: [] as number[], resources: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    let servedSkills = exposedSkills(skills, 'passthrough-unique');
    let servedResources = exposedResources(resources, []);
    build.skills.push(time(() => (servedSkills = exposedSkills(skills, 'passthrough-unique'))));
    build.resources.push(time(() => (servedResources = exposedResources(resources, []))));
    const skillUris = servedSkills.skills.map((s) => `${s.root}/templates/x/c.md`);
    const resourceUris = [...servedResources.resources.keys()];
    resolve.skills.push(
      (time(() => {
        for (let i = 0; i < RESOLVES; i++) servedSkills.resolve(skillUris[i % skillUris.length]!);
      }) *
        1000) /
        RESOLVES,
    );
    resolve.resources.push(
      (time(() => {
        for (let i = 0; i < RESOLVES; i++) servedResources.resolve(resourceUris[i % resourceUris.length]!);
      }) *
        1000) /
        RESOLVES,
    );
  }
  const [bs, br, rs, rr] = [build.skills, build.resources, resolve.skills, resolve.resources].map(median) as [
    number,
    number,
    number,
    number,
  ];
  console.log(
    `${String(n).padStart(6)}  ${String(n * 4).padStart(5)}  ${fmt(bs).padStart(15)}  ${fmt(br).padStart(18)}  ${fmt(bs / br).padStart(5)}  ${fmt(rs, 3).padStart(16)}  ${fmt(rr, 3).padStart(19)}  ${fmt(rs / rr).padStart(5)}`,
  );
}
