import type { AgentTool } from '../../../src/agents/adapters/agent-tool.js';
import { type ToolOutputOptions, toAgentToolOutput } from '../../../src/agents/adapters/tool-output.js';
import { normalizeToolResult } from '../../../src/client/results.js';

/** A small tool set for the provider formatter tests: a plain tool, a long name, a root union. */
export const LONG_NAME = `mcp__analytics__${'export_quarterly_revenue_report_'.repeat(3)}csv`;

export const sampleTools: readonly AgentTool[] = [
  {
    name: 'mcp__fs__read_file',
    description: 'Read  a file.   Only works within allowed directories.',
    inputSchema: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { path: { title: 'Path', type: 'string', description: 'File to read' } },
      required: ['path'],
    },
  },
  { name: LONG_NAME, description: '', inputSchema: {} },
  {
    name: 'activate_tools',
    description: 'Load tools by name or by server.',
    inputSchema: {
      anyOf: [
        {
          type: 'object',
          properties: { names: { type: 'array', items: { type: 'string' } } },
          required: ['names'],
        },
        { type: 'object', properties: { server: { type: 'string' } }, required: ['server'] },
      ],
    },
  },
];

export const PNG_BYTES = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A result with text, a PNG, an SVG (no API takes it inline) and a link. */
export function imageOutput(options: ToolOutputOptions = {}) {
  return toAgentToolOutput(
    normalizeToolResult({
      content: [
        { type: 'text', text: 'Chart ready.' },
        { type: 'image', mimeType: 'image/png', data: PNG_BYTES.toString('base64') },
        { type: 'image', mimeType: 'image/svg+xml', data: Buffer.from('<svg/>').toString('base64') },
        { type: 'resource_link', uri: 'https://x.test/report', name: 'report' },
      ],
    }),
    options,
  );
}

export function jsonOutput(options: { readonly isError?: boolean } = {}) {
  return toAgentToolOutput(
    normalizeToolResult({
      isError: options.isError ?? false,
      content: [{ type: 'text', text: '{"ok": false}' }],
      structuredContent: { ok: false },
    }),
  );
}
