import { describe, expect, it } from 'vitest';
import {
  encodeMessage,
  errorFromThrown,
  errorMessage,
  resultMessage,
  serversMessage,
} from '../../../src/cli/jsonl/messages.js';
import { SwitchboardError } from '../../../src/core/errors.js';
import type { InboxItem } from '../../../src/host/inbox/inbox.js';
import { inboxItemJson } from '../../../src/host/inbox/inbox-item-json.js';

describe('JSON-lines messages', () => {
  it('puts the id right after the type, and leaves it out when the request had none', () => {
    expect(encodeMessage(serversMessage([], 'r1'))).toBe('{"type":"mcp_servers","id":"r1","servers":[]}');
    expect(encodeMessage(serversMessage([]))).toBe('{"type":"mcp_servers","servers":[]}');
    expect(encodeMessage(errorMessage({ code: 'UNKNOWN_OP', message: 'm' }, 0))).toBe(
      '{"type":"error","id":0,"error":{"code":"UNKNOWN_OP","message":"m"}}',
    );
  });

  it('encodes a message as exactly one line, whatever its text holds', () => {
    const line = encodeMessage(
      resultMessage('mcp__a__b', { content: [{ type: 'text', text: 'two\nlines\r\u2028' }] }, 5),
    );
    expect(line.split('\n')).toHaveLength(1);
    expect(JSON.parse(line)).toMatchObject({ type: 'result', id: 5, tool: 'mcp__a__b' });
  });

  it('turns an inbox item into plain JSON with ISO dates', () => {
    const item: InboxItem = {
      id: 'i1',
      kind: 'elicitation',
      server: 'accounts',
      preview: 'API key?',
      mode: 'form',
      requestedSchema: { type: 'object', properties: { api_key: { type: 'string' } } },
      secretFields: ['api_key'],
      createdAt: new Date('2026-01-02T03:04:05.000Z'),
      deadline: new Date('2026-01-02T03:09:05.000Z'),
    };
    expect(JSON.parse(JSON.stringify(inboxItemJson(item)))).toEqual({
      ...item,
      createdAt: '2026-01-02T03:04:05.000Z',
      deadline: '2026-01-02T03:09:05.000Z',
    });
  });

  it('keeps the code of a SwitchboardError and calls anything else INTERNAL', () => {
    expect(errorFromThrown(new SwitchboardError('NOT_FOUND', 'No server "x".'))).toEqual({
      code: 'NOT_FOUND',
      message: 'No server "x".',
    });
    expect(errorFromThrown(new TypeError('boom'))).toEqual({
      code: 'INTERNAL',
      message: expect.stringMatching(/^boom\. .*keeps running/),
    });
  });
});
