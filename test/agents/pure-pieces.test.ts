import { describe, expect, it } from 'vitest';
import { injectMcpList, MCP_LIST_TAG, renderMcpList } from '../../src/agents/mcp-list.js';
import { capped } from '../../src/agents/meta-tools/resources-tool.js';
import { parseSlashCommand } from '../../src/agents/slash-commands.js';
import { effectiveToolSet } from '../../src/agents/tool-set.js';
import { buildCatalog } from '../../src/host/catalog/catalog.js';

/** The pure pieces of the agents layer, without a host. */

describe('renderMcpList', () => {
  it('lists loaded and available servers, trims long descriptions, marks unavailable ones', () => {
    const block = renderMcpList([
      { name: 'fs', active: true, tools: 14, description: 'Files\n  in   the sandbox' },
      { name: 'gh', active: false, tools: 1, description: 'x'.repeat(300), unavailable: true },
    ]);
    expect(block).toContain('- fs (14 tools) — Files in the sandbox');
    expect(block).toMatch(/- gh \(1 tool, not connected\) — x{119}…/);
    expect(block.indexOf('Loaded')).toBeLessThan(block.indexOf('Available'));
    expect(block).toContain('the group "config"');
    expect(renderMcpList([], { configActive: true })).toBe('## MCP servers\nNo MCP servers are configured.');
  });

  it('replaces every tag and leaves a template without one alone', () => {
    expect(injectMcpList(`a ${MCP_LIST_TAG} b ${MCP_LIST_TAG}`, 'L')).toBe('a L b L');
    expect(injectMcpList('plain', 'L')).toBe('plain');
  });
});

describe('parseSlashCommand', () => {
  it('reads the prompt name and JSON arguments', () => {
    expect(parseSlashCommand('  /mcp__docs__summarize {"topic": "rust"} ')).toEqual({
      name: 'mcp__docs__summarize',
      args: { topic: 'rust' },
    });
    expect(parseSlashCommand('/mcp__docs__hello')).toEqual({ name: 'mcp__docs__hello', args: {} });
  });

  it('passes other input on and names the expected form for bad arguments', () => {
    expect(parseSlashCommand('/help')).toBeUndefined();
    expect(parseSlashCommand('hello /mcp__a__b')).toBeUndefined();
    expect(() => parseSlashCommand('/mcp__a__b [1]')).toThrow(
      /must be one JSON object, like \/mcp__a__b \{"topic"/,
    );
    expect(() => parseSlashCommand('/mcp__a__b {oops')).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });
});

describe('capped', () => {
  it('keeps output under the cap, cuts on a character boundary and says how much was left out', () => {
    const result = capped(
      {
        content: [
          { type: 'text', text: 'ab' },
          { type: 'resource', resource: { uri: 'x://1', text: 'é'.repeat(10) } },
          { type: 'text', text: 'never shown' },
        ],
      },
      7,
    );
    const texts = result.content.map((c) =>
      c.type === 'text' ? c.text : c.type === 'resource' && 'text' in c.resource ? c.resource.text : '',
    );
    expect(texts[0]).toBe('ab');
    expect(texts[1]).toBe('éé');
    expect(texts.at(-1)).toBe('[Output cut: 27 bytes over the 7-byte limit were left out.]');
    const small = { content: [{ type: 'text' as const, text: 'short' }] };
    expect(capped(small, 100)).toBe(small);
  });
});

describe('effectiveToolSet', () => {
  const tool = (name: string) => ({ name, inputSchema: { type: 'object' as const } });
  const catalog = buildCatalog([
    { server: 'a', tools: [tool('one')] },
    { server: 'b', tools: [tool('two')] },
    { server: 'h', tools: [tool('three')] },
  ]);
  const deferral = { a: 'eager', b: 'deferred', h: 'hidden' } as const;
  const meta = [{ name: 'activate_tools', description: '', inputSchema: {} }];
  const config = [{ name: 'list_mcp', description: '', inputSchema: {} }];

  it('offers meta-tools, eager servers, granted servers and config only when granted; never hidden ones', () => {
    const set = (granted: string[]) =>
      effectiveToolSet({
        catalog: catalog.tools,
        deferralOf: (s) => deferral[s as keyof typeof deferral],
        granted: new Set(granted),
        metaTools: meta,
        configTools: config,
      }).map((t) => t.name);
    expect(set([])).toEqual(['activate_tools', 'mcp__a__one']);
    expect(set(['b', 'h', 'config'])).toEqual(['activate_tools', 'list_mcp', 'mcp__a__one', 'mcp__b__two']);
  });
});
