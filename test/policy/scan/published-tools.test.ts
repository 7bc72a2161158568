import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Tool } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { scanTool } from '../../../src/policy/scan/scan-tool.js';

/** The published reference servers' real tool lists: the scanner must find nothing in them. */
const file = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/catalogs/published-tools.json');
const published = JSON.parse(readFileSync(file, 'utf8')) as { servers: Record<string, { tools: Tool[] }> };

describe('scanner on published servers', () => {
  it('flags none of their tools', () => {
    const every = Object.entries(published.servers).flatMap(([server, { tools }]) =>
      tools.map((t) => ({ server, name: t.name })),
    );
    const flagged: string[] = [];
    let scanned = 0;
    for (const [server, { tools }] of Object.entries(published.servers)) {
      for (const tool of tools) {
        scanned++;
        if (scanTool(tool, { server, otherTools: every }).length > 0) flagged.push(`${server}/${tool.name}`);
      }
    }
    expect(scanned).toBeGreaterThanOrEqual(40);
    expect(flagged).toEqual([]);
  });
});
