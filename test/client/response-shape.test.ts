import { isJSONRPCErrorResponse, isJSONRPCResultResponse } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import {
  MALFORMED_RESPONSE_CODE,
  MalformedResponse,
  repairResponse,
  responseProblem,
} from '../../src/client/response-shape.js';
import { MALFORMED_SHAPES, type MalformedShape } from '../fixtures/raw-mcp.js';

/**
 * The check by hand against the SDK's own guards: every answer it calls malformed, the SDK
 * refuses too, and every answer the SDK takes, it leaves alone.
 */
const SHAPES = Object.keys(MALFORMED_SHAPES).filter((s) => s !== 'bad-result') as MalformedShape[];

const WELL_FORMED = [
  { jsonrpc: '2.0', id: 1, result: {} },
  { jsonrpc: '2.0', id: 'a', result: { content: [], _meta: { x: 1 } } },
  { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } },
  { jsonrpc: '2.0', id: 3, error: { code: -32000, message: 'x', data: { why: 1 }, extra: 1 } },
  // Well-formed JSON-RPC whose result no method takes: for the method's schema to refuse.
  MALFORMED_SHAPES['bad-result'](4),
];

describe('responseProblem', () => {
  it.each(SHAPES)('names what is wrong with %s, and the SDK refuses it too', (shape) => {
    const message = MALFORMED_SHAPES[shape](7);
    expect(responseProblem(message)).toEqual(expect.any(String));
    expect(isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)).toBe(false);
  });

  it.each(WELL_FORMED.map((m) => [JSON.stringify(m), m]))(
    'leaves %s alone, as the SDK takes it',
    (_, message) => {
      expect(responseProblem(message)).toBeUndefined();
      expect(repairResponse(message)).toBeUndefined();
      expect(isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)).toBe(true);
    },
  );

  it('says what is wrong in words', () => {
    expect(responseProblem(MALFORMED_SHAPES['result-not-object'](1))).toBe(
      'its "result" is the number 42, not an object',
    );
    expect(responseProblem(MALFORMED_SHAPES['error-without-code'](1))).toBe(
      'its "error" has no integer "code" (it is missing)',
    );
    expect(responseProblem(MALFORMED_SHAPES['result-and-error'](1))).toBe(
      'it carries both "result" and "error"',
    );
    expect(responseProblem(MALFORMED_SHAPES.neither(1))).toBe('it carries neither "result" nor "error"');
  });

  it('leaves requests, notifications and answers without a usable id alone', () => {
    expect(responseProblem({ jsonrpc: '2.0', id: 1, method: 'ping' })).toBeUndefined();
    expect(responseProblem({ jsonrpc: '2.0', method: 'notifications/progress' })).toBeUndefined();
    expect(responseProblem({ jsonrpc: '2.0', id: null, result: 42 })).toBeUndefined();
    expect(responseProblem({ jsonrpc: '2.0', id: 1.5, result: 42 })).toBeUndefined();
    expect(responseProblem('not a message')).toBeUndefined();
  });
});

describe('repairResponse', () => {
  it('puts an error for the same id in place of a malformed answer, keeping what was wrong', () => {
    const original = MALFORMED_SHAPES['error-not-object']('req-9');
    const repaired = repairResponse(original);
    expect(isJSONRPCErrorResponse(repaired)).toBe(true);
    expect(repaired?.id).toBe('req-9');
    expect(repaired?.error.code).toBe(MALFORMED_RESPONSE_CODE);
    const data = repaired?.error.data;
    expect(data).toBeInstanceOf(MalformedResponse);
    expect((data as MalformedResponse).problem).toBe('its "error" is the string "broken", not an object');
    expect((data as MalformedResponse).original).toBe(original);
  });
});
