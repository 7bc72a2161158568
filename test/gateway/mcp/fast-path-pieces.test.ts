import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { requestHead } from '../../../src/gateway/http/context.js';
import { plainToolCall } from '../../../src/gateway/mcp/fast-tool-call.js';
import {
  encodeToolResult,
  jsonRpcErrorResult,
  plainToolResult,
} from '../../../src/gateway/mcp/wire-result.js';

/** The pure parts of the fast path: which requests it takes, which results it writes itself. */
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': { sampling: {} },
};
const HEADERS = {
  'content-type': 'application/json',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'echo',
};

function offer(
  options: {
    headers?: Record<string, string | undefined>;
    params?: Record<string, unknown>;
    meta?: Record<string, unknown>;
    body?: unknown;
    method?: string;
  } = {},
) {
  const headers = Object.fromEntries(
    Object.entries({ ...HEADERS, ...options.headers }).filter(
      (e): e is [string, string] => e[1] !== undefined,
    ),
  );
  const request = new Request('http://127.0.0.1/mcp', { method: options.method ?? 'POST', headers });
  const body = options.body ?? {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'echo',
      arguments: { text: 'hi' },
      _meta: { ...ENVELOPE, ...options.meta },
      ...options.params,
    },
  };
  return plainToolCall(requestHead(request), body);
}

describe('plainToolCall', () => {
  it('takes the plain 2026-07-28 call, with the client capabilities of its envelope', () => {
    expect(offer()).toEqual({
      id: 1,
      name: 'echo',
      args: { text: 'hi' },
      clientCapabilities: { sampling: {} },
    });
    expect(offer({ params: { arguments: undefined } })?.args).toEqual({});
  });

  it('declines anything the full path must see', () => {
    const declined: [string, Parameters<typeof offer>[0]][] = [
      ['a progress token', { meta: { progressToken: 1 } }],
      ['an idempotency key', { meta: { idempotencyKey: 'k' } }],
      ['a log level', { meta: { 'io.modelcontextprotocol/logLevel': 'info' } }],
      ['a requestState', { params: { requestState: 'v1.x.y' } }],
      ['inputResponses', { params: { inputResponses: {} } }],
      ['a task request', { params: { task: {} } }],
      ['arguments that are no object', { params: { arguments: [1] } }],
      ['no envelope (a 2025 request)', { params: { _meta: undefined } }],
      ['a batch', { body: [] }],
      [
        'another method',
        { body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: ENVELOPE } } },
      ],
      [
        'a notification',
        { body: { jsonrpc: '2.0', method: 'tools/call', params: { name: 'echo', _meta: ENVELOPE } } },
      ],
      ['no Mcp-Name header', { headers: { 'mcp-name': undefined } }],
      ['an Mcp-Name that differs', { headers: { 'mcp-name': 'other' } }],
      ['a Base64 Mcp-Name', { headers: { 'mcp-name': '=?base64?ZWNobw==?=' } }],
      ['no Mcp-Method header', { headers: { 'mcp-method': undefined } }],
      ['no protocol version header', { headers: { 'mcp-protocol-version': undefined } }],
      ['a 2025 protocol version header', { headers: { 'mcp-protocol-version': '2025-11-25' } }],
      [
        'an envelope naming another version',
        { meta: { 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } },
      ],
      ['a bad envelope', { meta: { 'io.modelcontextprotocol/clientCapabilities': 'all' } }],
      ['a body that is not JSON (text/plain)', { headers: { 'content-type': 'text/plain' } }],
      ['a GET', { method: 'GET' }],
    ];
    for (const [what, options] of declined) expect(offer(options), what).toBeUndefined();
  });
});

describe('plainToolCall remembers the classifier verdicts by envelope', () => {
  it('agrees with the SDK classifier on every shape, asked first or asked again', () => {
    const shapes: [string, Parameters<typeof offer>[0]][] = [
      ['plain', {}],
      ['a bad client info', { meta: { 'io.modelcontextprotocol/clientInfo': { name: 7 } } }],
      ['bad capabilities', { meta: { 'io.modelcontextprotocol/clientCapabilities': 'all' } }],
      ['a string id', { body: plainBody({ id: 'a' }) }],
      ['a fractional id', { body: plainBody({ id: 1.5 }) }],
      ['another jsonrpc', { body: plainBody({ jsonrpc: '1.0' }) }],
      ['an extra top-level key', { body: plainBody({ extra: true }) }],
    ];
    for (let pass = 0; pass < 3; pass++) {
      for (const [what, options] of shapes) {
        const body =
          options?.body ??
          plainBody({ params: { ...plainBody().params, _meta: { ...ENVELOPE, ...options?.meta } } });
        const route = classifyInboundRequest({
          httpMethod: 'POST',
          protocolVersionHeader: '2026-07-28',
          mcpMethodHeader: 'tools/call',
          mcpNameHeader: 'echo',
          body,
        });
        const sdkSaysModern =
          route.kind === 'modern' &&
          route.messageKind === 'request' &&
          route.classification.revision === '2026-07-28';
        expect(offer({ body }) !== undefined, `${what}, pass ${pass}`).toBe(sdkSaysModern);
      }
    }
    // The plain call is taken, the broken envelopes are not: the verdicts do not leak into each other.
    expect(offer()).toBeDefined();
    expect(offer({ meta: { 'io.modelcontextprotocol/clientInfo': { name: 7 } } })).toBeUndefined();
  });
});

function plainBody(
  overrides: Record<string, unknown> = {},
): { params: Record<string, unknown> } & Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text: 'hi' }, _meta: ENVELOPE },
    ...overrides,
  };
}

describe('plainToolResult and encodeToolResult', () => {
  it('writes plain results itself, stamped as the SDK does', () => {
    const text = { content: [{ type: 'text' as const, text: 'hi' }] };
    expect(plainToolResult(text)).toBe(true);
    expect(encodeToolResult(text)).toEqual({
      content: [{ type: 'text', text: 'hi' }],
      resultType: 'complete',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'switchboard', version: '0.1.0' } },
    });
    const upstream = {
      content: [{ type: 'image' as const, data: 'aGk=', mimeType: 'image/png' }],
      structuredContent: { a: 1 },
      isError: false,
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'up', version: '2' }, trace: 'x' },
    };
    expect(plainToolResult(upstream)).toBe(true);
    // The upstream's identity is the more specific author: kept.
    expect(encodeToolResult(upstream)._meta).toEqual(upstream._meta);
    expect(encodeToolResult({ content: [], _meta: { trace: 'x' } })._meta).toEqual({
      trace: 'x',
      'io.modelcontextprotocol/serverInfo': { name: 'switchboard', version: '0.1.0' },
    });
  });

  it('leaves to the SDK every result its validation could change', () => {
    const notPlain: unknown[] = [
      {},
      { content: [], extra: 1 },
      { content: [], resultType: 'complete' },
      { content: [], isError: 'yes' },
      { content: [{ type: 'text', text: 'x', annotations: { priority: 1 } }] },
      { content: [{ type: 'text', text: 1 }] },
      { content: [{ type: 'text', text: 'x', unknown: true }] },
      { content: [{ type: 'image', data: '%%%', mimeType: 'image/png' }] },
      { content: [{ type: 'resource_link', uri: 'x:', name: 'x' }] },
      { content: [], _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'up' } } },
      {
        content: [],
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'up', version: '1', title: 't' } },
      },
      { content: [], _meta: [] },
    ];
    for (const value of notPlain) expect(plainToolResult(value), JSON.stringify(value)).toBe(false);
  });

  it('writes errors as the SDK does, and leaves it the one it answers with another status', async () => {
    const response = jsonRpcErrorResult(3, { code: -32002, message: 'gone', data: { uri: 'x:' } });
    expect(response?.status).toBe(200);
    expect(await response?.json()).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32602, message: 'gone', data: { uri: 'x:' } },
    });
    expect(jsonRpcErrorResult(3, { code: -32021, message: 'missing capability' })).toBeUndefined();
  });
});
