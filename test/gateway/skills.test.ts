import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type Skill, SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGateway, resolveGateway } from '../../src/core/config/gateway-config.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { type HttpGateway, startHttpGateway } from '../../src/gateway/http-gateway.js';
import { IdempotencyCache } from '../../src/gateway/mcp/idempotency.js';
import { serveGatewayStdio } from '../../src/gateway/stdio/serve-stdio.js';
import { Host } from '../../src/host/host.js';
import { conformanceUpstreamBin, skillsLabBin } from '../fixtures/paths.js';
import { eventually } from '../helpers/wait.js';
import { LineTransport } from './line-transport.js';
import { passthrough, quietLog, rpcError } from './modern-client.js';

/**
 * The Skills extension through the gateway, end to end: a real Host with two real upstreams
 * over stdio that both serve skills (the skills lab, with hostile skills, and the conformance
 * fixture), both serving `pdf-processing`, `acme/billing/refunds` and `git-workflow`; HTTP
 * gateways in front with different settings; SDK v2 clients of both eras, whose own skills
 * client verifies every file it reads through the gateway against the entry it was served.
 */

let dataDir: string;
let host: Host;
const gateways: HttpGateway[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sb-gw-skills-'));
  host = await Host.create({
    dataDir,
    governance: { mode: 'full-auto' },
    servers: [
      normalizeServerEntry({ name: 'lab', command: process.execPath, args: [skillsLabBin] }),
      normalizeServerEntry({ name: 'conf', command: process.execPath, args: [conformanceUpstreamBin] }),
    ],
  });
  await eventually(
    () => host.skills.list().map((s) => s.server),
    (servers) => servers.includes('lab') && servers.includes('conf'),
    { what: 'the skills of both servers in the catalog' },
  );
});

afterAll(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  for (const g of gateways.splice(0)) await g.close();
  await host?.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function gateway(section: Record<string, unknown> = {}): Promise<HttpGateway> {
  const settings = resolveGateway(parseGateway({ port: 0, ...section }, 'test.json'));
  const started = await startHttpGateway(host, settings, { log: quietLog });
  gateways.push(started);
  return started;
}

async function client(url: string, era: 'legacy' | 'modern'): Promise<Client> {
  const c = new Client(
    { name: 'skills-test', version: '1.0.0' },
    { versionNegotiation: era === 'modern' ? { mode: { pin: '2026-07-28' } } : { mode: 'legacy' } },
  );
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  clients.push(c);
  return c;
}

const uris = (skills: readonly Skill[]) => skills.map((s) => s.uri);

describe.each(['legacy', 'modern'] as const)('skills through the gateway, %s client', (era) => {
  let passthroughUrl: string;
  let namespacedUrl: string;
  beforeAll(async () => {
    passthroughUrl = (await gateway({ names: 'passthrough-unique' })).url;
    namespacedUrl = (await gateway({ names: 'namespaced' })).url;
  });

  it('passthrough-unique: a skill both servers serve is namespaced, one only one serves keeps its URI', async () => {
    const c = await client(passthroughUrl, era);
    const skills = new SkillsClient(c);
    expect(skills.supported).toBe(true);
    expect(skills.directoryRead).toBe(true);
    const listed = uris((await skills.list()).skills);
    expect(listed).toEqual(
      expect.arrayContaining([
        'skill://conf/pdf-processing/SKILL.md',
        'skill://lab/pdf-processing/SKILL.md',
        'skill://conf/acme/billing/refunds/SKILL.md',
        'skill://lab/git-workflow/SKILL.md',
        'skill://team-a/refunds/SKILL.md',
        'skill://tampered-digest/SKILL.md',
      ]),
    );
    // The lab's invalid entries never reached the catalog.
    expect(listed.some((u) => u.includes('escape') || u.includes('name-mismatch'))).toBe(false);
  });

  it('namespaced: every skill under its server, the name still the last segment', async () => {
    const skills = new SkillsClient(await client(namespacedUrl, era));
    const listed = (await skills.list()).skills;
    for (const skill of listed) {
      expect(skill.uri).toMatch(/^skill:\/\/(lab|conf)\//);
      expect(skill.uri.endsWith(`/${skill.frontmatter.name}/SKILL.md`)).toBe(true);
    }
    expect(uris(listed)).toContain('skill://lab/team-b/refunds/SKILL.md');
  });

  it('serves files byte for byte: the client verifies them against the served entry', async () => {
    const skills = new SkillsClient(await client(namespacedUrl, era));
    const listed = (await skills.list()).skills;
    for (const server of ['lab', 'conf']) {
      const pdf = listed.find((s) => s.uri === `skill://${server}/pdf-processing/SKILL.md`)!;
      const manifest = await skills.read(pdf);
      expect(manifest.verified).toBe(true);
      expect(manifest.frontmatter).toEqual(pdf.frontmatter);
      const forms = await skills.read(pdf, 'references/FORMS.md');
      expect(forms.uri).toBe(`skill://${server}/pdf-processing/references/FORMS.md`);
      expect(forms.verified).toBe(true);
    }
    // A hostile skill stays hostile: the gateway relays, the client refuses.
    const tampered = listed.find((s) => s.uri === 'skill://lab/tampered-digest/SKILL.md')!;
    await expect(skills.read(tampered)).rejects.toMatchObject({ reason: 'digest' });
  });

  it('skills/get fetches the entry from its server, under the URI asked', async () => {
    const skills = new SkillsClient(await client(passthroughUrl, era));
    const { skill, ...cache } = await skills.get('skill://lab/pdf-processing/SKILL.md');
    expect(skill.uri).toBe('skill://lab/pdf-processing/SKILL.md');
    expect((skill.resources as { uri: string }[]).map((r) => r.uri)).toContain(
      'skill://lab/pdf-processing/templates/regional/eu-invoice.md',
    );
    expect(cache).toEqual(era === 'modern' ? { ttlMs: 0, cacheScope: 'private' } : {});
    expect((await skills.get('skill://team-a/refunds/SKILL.md')).skill.frontmatter.description).toBe(
      'Team A refunds',
    );
    const c = clients.at(-1)!;
    const unknown = await rpcError(
      c.request({ method: 'skills/get', params: { uri: 'skill://nowhere/SKILL.md' } } as never, passthrough),
    );
    expect(unknown?.code).toBe(-32602);
    // A server's skill is reached by its namespaced URI, listed or not (the lab refuses to list
    // `escape`, whose entry is invalid: fetched, it is refused again, not served).
    const invalid = await rpcError(
      c.request(
        { method: 'skills/get', params: { uri: 'skill://lab/escape/SKILL.md' } } as never,
        passthrough,
      ),
    );
    expect(invalid?.code).toBeDefined();
  });

  it('lists SKILL.md resources where the skills serve them', async () => {
    const c = await client(passthroughUrl, era);
    const { resources } = await c.listResources();
    expect(resources.find((r) => r.uri === 'skill://conf/pdf-processing/SKILL.md')).toMatchObject({
      name: 'pdf-processing',
      mimeType: 'text/markdown',
    });
    expect(resources.some((r) => r.uri === 'skill://pdf-processing/SKILL.md')).toBe(false);
    expect(resources.some((r) => r.uri === 'skill://team-a/refunds/SKILL.md')).toBe(true);
  });

  it('lists directories: relayed inside a skill, worked out above the skills; a file or a dot segment is refused', async () => {
    const c = await client(namespacedUrl, era);
    const read = (uri: string) =>
      c.request({ method: 'resources/directory/read', params: { uri } } as never, passthrough) as Promise<{
        resources: { uri: string; mimeType?: string }[];
      }>;
    const inside = await read('skill://conf/pdf-processing/templates');
    expect(inside.resources.map((r) => [r.uri, r.mimeType])).toEqual([
      ['skill://conf/pdf-processing/templates/invoice.md', 'text/markdown'],
      ['skill://conf/pdf-processing/templates/regional', 'inode/directory'],
    ]);
    const above = await read('skill://lab/team-a');
    expect(above.resources).toEqual([
      { uri: 'skill://lab/team-a/refunds', name: 'refunds', mimeType: 'inode/directory' },
    ]);
    for (const bad of [
      'skill://conf/pdf-processing/SKILL.md',
      'skill://conf/pdf-processing/../../lab/pdf-processing',
      'skill://conf/pdf-processing/%2e%2e/git-workflow',
      'skill://nowhere',
    ]) {
      expect((await rpcError(read(bad)))?.code, bad).toBe(-32602);
    }
  });

  it('refuses a cursor it never handed out', async () => {
    const c = await client(passthroughUrl, era);
    const list = await rpcError(
      c.request({ method: 'skills/list', params: { cursor: 'not-ours' } } as never, passthrough),
    );
    expect(list?.code).toBe(-32602);
    const dir = await rpcError(
      c.request(
        { method: 'resources/directory/read', params: { uri: 'skill://team-a', cursor: 'x' } } as never,
        passthrough,
      ),
    );
    expect(dir?.code).toBe(-32602);
  });

  it('refuses a dot segment in a read rather than route it to another skill or server', async () => {
    const c = await client(namespacedUrl, era);
    for (const uri of [
      'skill://conf/pdf-processing/../../lab/tampered-digest/SKILL.md',
      'skill://conf/pdf-processing/%2E%2E/%2E%2E/lab/pdf-processing/SKILL.md',
    ]) {
      expect((await rpcError(c.readResource({ uri })))?.code, uri).toBe(-32602);
    }
  });
});

describe('skills through the gateway: expose, grants, audit', () => {
  it('expose.skills lets through only the skills its globs name; files of the others are not read', async () => {
    const g = await gateway({ names: 'namespaced', expose: { skills: ['conf/*', 'lab/team-?/*'] } });
    const c = await client(g.url, 'modern');
    const listed = uris((await new SkillsClient(c).list()).skills);
    expect(listed.filter((u) => u.startsWith('skill://lab/'))).toEqual([
      'skill://lab/team-a/refunds/SKILL.md',
      'skill://lab/team-b/refunds/SKILL.md',
    ]);
    expect(listed.filter((u) => u.startsWith('skill://conf/'))).toHaveLength(3);
    for (const request of [
      c.readResource({ uri: 'skill://lab/pdf-processing/SKILL.md' }),
      c.request(
        { method: 'skills/get', params: { uri: 'skill://lab/git-workflow/SKILL.md' } } as never,
        passthrough,
      ),
    ]) {
      expect((await rpcError(request))?.code).toBe(-32602);
    }
  });

  it('expose.skills [] leaves the extension out: not declared, its methods not there', async () => {
    const g = await gateway({ expose: { skills: [] } });
    for (const era of ['legacy', 'modern'] as const) {
      const c = await client(g.url, era);
      expect(c.getServerCapabilities()?.extensions?.['io.modelcontextprotocol/skills']).toBeUndefined();
    }
    // (A 2026-07-28 client hears -32601 as HTTP 404, which its SDK reports as an HTTP error.)
    const c = await client(g.url, 'legacy');
    const error = await rpcError(c.request({ method: 'skills/list', params: {} } as never, passthrough));
    expect(error?.code).toBe(-32601);
    expect(await new SkillsClient(c).list()).toMatchObject({ skills: [] });
  });

  it("a principal's grants decide whose skills it sees", async () => {
    const token = 'conf-only-token-0123456789';
    const sha256 = (await import('node:crypto')).createHash('sha256').update(token).digest('hex');
    const g = await gateway({
      names: 'namespaced',
      auth: { mode: 'bearer', tokens: [{ id: 'conf-only', sha256, servers: ['conf'] }] },
    });
    const c = new Client(
      { name: 'granted', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await c.connect(
      new StreamableHTTPClientTransport(new URL(g.url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(c);
    const listed = uris((await new SkillsClient(c).list()).skills);
    expect(listed.length).toBe(3);
    expect(listed.every((u) => u.startsWith('skill://conf/'))).toBe(true);
    expect((await rpcError(c.readResource({ uri: 'skill://lab/pdf-processing/SKILL.md' })))?.code).toBe(
      -32602,
    );
  });

  it('tells a session its resources changed when a skill changes, and serves the new entry', async () => {
    const g = await gateway({ names: 'namespaced' });
    const c = await client(g.url, 'legacy');
    const skills = new SkillsClient(c);
    const before = (await skills.list()).skills.find((s) => s.uri === 'skill://lab/pdf-processing/SKILL.md')!;
    const told = new Promise<void>((resolve) =>
      c.setNotificationHandler('notifications/resources/list_changed', () => resolve()),
    );
    await host.callTool('mcp__lab__rotate_forms', {});
    await told;
    const after = (await skills.list()).skills.find((s) => s.uri === before.uri)!;
    expect(after.resources).not.toEqual(before.resources);
    expect((await skills.get(before.uri)).skill).toEqual(after);
    // The entry the client held before fails on the changed file; the new one reads it.
    await expect(skills.read(before, 'references/FORMS.md')).rejects.toMatchObject({ reason: 'digest' });
    expect((await skills.read(after, 'references/FORMS.md')).text).toMatch(/revision \d/);
  });

  it('serves skills over stdio too, in both eras, under the same expose section', async () => {
    const settings = resolveGateway(
      parseGateway({ names: 'namespaced', expose: { skills: ['conf/pdf-processing'] } }, 'test.json'),
    );
    for (const era of ['legacy', 'modern'] as const) {
      const input = new PassThrough();
      const output = new PassThrough();
      const served = serveGatewayStdio(host, {
        input,
        output,
        naming: settings.names,
        expose: settings.expose,
        consent: settings.consent,
        limits: settings.limits,
        idempotency: new IdempotencyCache(60_000),
      });
      const c = new Client(
        { name: 'stdio-skills', version: '1.0.0' },
        { versionNegotiation: era === 'modern' ? { mode: { pin: '2026-07-28' } } : { mode: 'legacy' } },
      );
      try {
        await c.connect(new LineTransport(input, output));
        const skills = new SkillsClient(c);
        const listed = (await skills.list()).skills;
        expect(uris(listed)).toEqual(['skill://conf/pdf-processing/SKILL.md']);
        expect((await skills.read(listed[0]!, 'references/FORMS.md')).verified).toBe(true);
      } finally {
        await c.close();
        await served.close();
      }
    }
  });

  it('audits skills/get and every skill file read with the caller', async () => {
    const g = await gateway({ names: 'namespaced' });
    const skills = new SkillsClient(await client(g.url, 'legacy'));
    const { skill } = await skills.get('skill://conf/git-workflow/SKILL.md');
    await skills.read(skill);
    const { entries } = await host.audit({ limit: 50 });
    const get = entries.find((e) => e.action === 'skill_get' && e.server === 'conf');
    expect(get?.details).toMatchObject({ uri: 'skill://git-workflow/SKILL.md' });
    const read = entries.find(
      (e) =>
        e.action === 'resource_read' &&
        e.server === 'conf' &&
        (e.details as { uri?: string } | undefined)?.uri === 'skill://git-workflow/SKILL.md',
    );
    expect(read?.outcome).toBe('ok');
  });
});
