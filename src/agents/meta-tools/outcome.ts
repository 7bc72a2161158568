import type { CallToolResult } from '@modelcontextprotocol/client';

/**
 * What a meta-tool answers, in the shape of an MCP tool result, so that meta-tools and
 * upstream tools reach a model through the same adapters.
 */

export function textOutcome(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

/** A result a model can read as JSON (and as text, for providers that take only text). */
export function jsonOutcome(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

/** A failure the model should see and can correct: what went wrong and what to do. */
export function errorOutcome(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** Reads a string argument; undefined when absent or not a string. */
export function stringArg(args: Record<string, unknown>, name: string): string | undefined {
  const value = args[name];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** What a read or a prompt get hands a model at most, in bytes of text (256 KiB). */
export const CONTENT_OUTPUT_CAP = 256 * 1024;

/** The first `maxBytes` bytes of `text` as UTF-8, never ending in half a character. */
export function cutToBytes(text: string, maxBytes: number): string {
  return Buffer.from(text)
    .subarray(0, Math.max(maxBytes, 0))
    .toString('utf8')
    .replace(/\uFFFD$/, '');
}

/** The note that says how much of a capped output was left out. */
export function cutNote(cut: number, cap: number): string {
  return `[Output cut: ${cut} bytes over the ${cap >= 1024 ? `${Math.round(cap / 1024)} KiB` : `${cap}-byte`} limit were left out.]`;
}
