import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cappedMessages } from '../../src/agents/meta-tools/prompts-tool.js';
import { judgeFilePath, judgeListed } from '../../src/agents/meta-tools/resource-scope.js';
import { AgentSession } from '../../src/agents/session.js';
import type { GovernanceConfig } from '../../src/core/config/governance-config.js';
import { isSwitchboardError } from '../../src/core/errors.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { Host } from '../../src/host/host.js';
import { decideRead } from '../../src/policy/decide.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { catalogHas } from '../helpers/wait.js';

/**
 * What an agent may read, and who may let it: resource reads name a URI the server listed or
 * one its templates fit, `file:` URIs stay in the workspace roots after links are resolved,
 * prompt output is capped like resource output, and reads and prompt gets pass through
 * policy (deny rules, the daemon and public_gateway profiles) and are audited.
 */

let dir: string;
let host: Host | undefined;

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'sb-scope-')));
});
afterEach(async () => {
  await host?.close();
  host = undefined;
  await rm(dir, { recursive: true, force: true });
});

const fileUri = (path: string) => pathToFileURL(path).href;

describe('the listing rule', () => {
  const offered = {
    listed: ['kitchen://text', 'docs://a b'],
    templates: ['kitchen://items/{id}', 'bad://{'],
  };

  it('reads what was listed or fits a template, and nothing else', () => {
    expect(judgeListed('kitchen://text', offered).ok).toBe(true);
    expect(judgeListed('kitchen://items/42', offered).ok).toBe(true);
    const unlisted = judgeListed('kitchen://secret', offered);
    expect(unlisted.ok).toBe(false);
    expect(unlisted.ok || unlisted.reason).toContain('not a resource the server listed');
    // The template's variable is one path segment: it does not fit a deeper path.
    expect(judgeListed('kitchen://items/1/../../etc', offered).ok).toBe(false);
    expect(judgeListed('file:///etc/passwd', offered).ok).toBe(false);
  });
});

describe('the workspace rule for file: URIs', () => {
  it('keeps reads inside the roots, links resolved', async () => {
    const root = join(dir, 'work');
    const outside = join(dir, 'outside');
    await mkdir(join(root, 'src'), { recursive: true });
    await mkdir(outside);
    await writeFile(join(root, 'src', 'a.txt'), 'a');
    await writeFile(join(outside, 'secret.txt'), 's');
    await symlink(outside, join(root, 'escape'));
    await symlink(join(root, 'src'), join(dir, 'into-work'));
    const roots = [{ uri: fileUri(root) }];

    expect((await judgeFilePath(fileUri(join(root, 'src', 'a.txt')), roots)).ok).toBe(true);
    // Not there yet: judged by where it would be.
    expect((await judgeFilePath(fileUri(join(root, 'src', 'new', 'b.txt')), roots)).ok).toBe(true);
    expect((await judgeFilePath(`${fileUri(root)}/src/../../outside/secret.txt`, roots)).ok).toBe(false);
    const linked = await judgeFilePath(fileUri(join(root, 'escape', 'secret.txt')), roots);
    expect(linked.ok).toBe(false);
    expect(linked.ok || linked.reason).toContain('outside the workspace roots');
    expect((await judgeFilePath(fileUri(join(root, 'escape', 'not-yet.txt')), roots)).ok).toBe(false);
    // A link from outside into the root reads what it points at, which is inside.
    expect((await judgeFilePath(fileUri(join(dir, 'into-work', 'a.txt')), roots)).ok).toBe(true);
    expect((await judgeFilePath(fileUri(`${root}-sibling/x`), roots)).ok).toBe(false);
    expect((await judgeFilePath('file://elsewhere/etc/passwd', roots)).ok).toBe(false);
    // Other schemes are the listing rule's business.
    expect((await judgeFilePath('kitchen://text', roots)).ok).toBe(true);
  });

  it('reads no file at all when no root is configured', async () => {
    const verdict = await judgeFilePath(fileUri(join(dir, 'a.txt')), []);
    expect(verdict.ok).toBe(false);
    expect(verdict.ok || verdict.reason).toContain('add "roots"');
  });
});

describe('the prompt output cap', () => {
  it('cuts across messages at the cap, on a character boundary, and counts what it cut', () => {
    const { messages, cut } = cappedMessages(
      [
        { role: 'user', text: 'abcd' },
        { role: 'assistant', text: 'ééé' },
        { role: 'user', text: 'never' },
      ],
      7,
    );
    // 4 bytes, then 3 of the 6 bytes of "ééé": one whole "é" (2 bytes) fits.
    expect(messages).toEqual([
      { role: 'user', text: 'abcd' },
      { role: 'assistant', text: 'é' },
    ]);
    expect(cut).toBe(4 + 5);
    expect(cappedMessages([{ role: 'user', text: 'ok' }], 7)).toEqual({
      messages: [{ role: 'user', text: 'ok' }],
      cut: 0,
    });
  });
});

describe('reads under policy', () => {
  it('denies reads in non-interactive profiles unless a rule allows them; deny rules win', () => {
    expect(decideRead({ server: 'docs', kind: 'resources/read', profile: 'interactive' }).verdict).toBe(
      'allow',
    );
    for (const profile of ['daemon', 'public_gateway'] as const) {
      const denied = decideRead({ server: 'docs', kind: 'prompts/get', profile });
      expect(denied.verdict).toBe('deny');
      expect(denied.reason).toContain('add an allow rule for docs/prompts/get');
      const allowed = decideRead({
        server: 'docs',
        kind: 'prompts/get',
        profile,
        rules: [{ server: 'docs', tool: '*', effect: 'allow' }],
      });
      expect(allowed.verdict).toBe('allow');
    }
    const ruled = decideRead({
      server: 'docs',
      kind: 'resources/read',
      profile: 'interactive',
      rules: [{ server: 'docs', tool: 'resources/read', effect: 'deny' }],
    });
    expect(ruled.verdict).toBe('deny');
  });
});

async function start(governance: Partial<GovernanceConfig>, roots?: string): Promise<Host> {
  const servers = [
    normalizeServerEntry({
      name: 'kitchen',
      command: process.execPath,
      args: [kitchenSinkBin],
      deferral: 'eager',
      ...(roots !== undefined && { roots: [{ uri: fileUri(roots) }] }),
    }),
  ];
  host = await Host.create({ dataDir: join(dir, 'data'), servers, governance });
  await catalogHas(host, 'mcp__kitchen__echo');
  return host;
}

describe('an agent reading through a real host', () => {
  it('reads listed and templated URIs, refuses others before the server is asked', async () => {
    const h = await start({ mode: 'full-auto' });
    const session = AgentSession.open(h, 'reader');
    expect((await session.execute('mcp_content', { uri: 'kitchen://text' })).text).toBe('hello text');
    expect((await session.execute('mcp_content', { uri: 'kitchen://items/7' })).text).toBe('item 7');
    const unlisted = await session.execute('mcp_content', { uri: 'kitchen://hidden', server: 'kitchen' });
    expect(unlisted.result.isError).toBe(true);
    expect(unlisted.text).toContain('Not read: kitchen://hidden is not a resource the server listed');
    const audit = await h.audit({ limit: 50 });
    // Refused before the server: no read was made or audited for it.
    const reads = audit.entries
      .filter((e) => e.action === 'resource_read')
      .map((e) => String((e.details as { uri?: string } | undefined)?.uri));
    expect(reads.sort()).toEqual(['kitchen://items/7', 'kitchen://text']);
  });

  it('denies reads and prompt gets in the daemon profile, audited, until a rule allows them', async () => {
    const h = await start({
      mode: 'full-auto',
      profile: 'daemon',
      rules: [{ server: 'kitchen', tool: 'echo', effect: 'allow' }],
    });
    const read = await h.readResource('kitchen', 'kitchen://text').catch((e: unknown) => e);
    expect(isSwitchboardError(read, 'POLICY_DENIED'), String(read)).toBe(true);
    expect((read as Error).message).toContain('add an allow rule for kitchen/resources/read');
    const prompt = await h.getPrompt('kitchen', 'greet', { name: 'x' }).catch((e: unknown) => e);
    expect(isSwitchboardError(prompt, 'POLICY_DENIED')).toBe(true);
    const session = AgentSession.open(h, 'daemon-agent');
    const viaAgent = await session.execute('mcp_content', { uri: 'kitchen://text' });
    expect(viaAgent.result.isError).toBe(true);
    expect(viaAgent.text).toContain('denied');
    const audit = await h.audit({ limit: 50 });
    const denied = audit.entries.filter((e) => e.outcome === 'denied').map((e) => e.action);
    expect(denied.sort()).toEqual(['prompt_get', 'resource_read', 'resource_read']);
    await h.close();
    host = undefined;

    const allowed = await start({
      mode: 'full-auto',
      profile: 'daemon',
      rules: [{ server: 'kitchen', tool: 'resources/read', effect: 'allow' }],
    });
    const ok = await allowed.readResource('kitchen', 'kitchen://text');
    expect(ok.contents[0]).toMatchObject({ text: 'hello text' });
  });
});
