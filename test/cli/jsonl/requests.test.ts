import { describe, expect, it } from 'vitest';
import { OPS, parseRequestLine } from '../../../src/cli/jsonl/requests.js';

const errorOf = (line: string) => {
  const parsed = parseRequestLine(line);
  if (parsed.ok) throw new Error(`expected an error for ${line}`);
  return parsed;
};

describe('parseRequestLine', () => {
  it('accepts every op in its documented form, with or without an id', () => {
    const lines = [
      { op: 'mcp_list' },
      { op: 'mcp_set', id: 'a', server: { name: 'w', command: 'node', args: ['w.js'] } },
      { op: 'mcp_remove', id: 7, name: 'w' },
      { op: 'mcp_toggle', name: 'w', enabled: false },
      { op: 'call', id: 1, server: 'w', tool: 'get', arguments: { city: 'Lisbon' } },
      { op: 'call', tool: 'mcp__w__get' },
      { op: 'resolve', itemId: 'i-1', answer: 'always' },
      { op: 'resolve', itemId: 'i-2', content: { api_key: 'x' } },
    ];
    for (const line of lines) {
      const parsed = parseRequestLine(JSON.stringify(line));
      expect(parsed, JSON.stringify(line)).toEqual({ ok: true, request: line });
    }
    expect(new Set(lines.map((l) => l.op))).toEqual(new Set(OPS));
  });

  it('says a line that is not JSON, or not an object, is wrong and how to send one', () => {
    expect(errorOf('hello').error).toMatchObject({
      code: 'PARSE_ERROR',
      message: expect.stringContaining('not JSON'),
    });
    for (const [line, kind] of [
      ['[1,2]', 'an array'],
      ['"mcp_list"', 'a string'],
      ['null', 'null'],
      ['42', 'a number'],
    ] as const) {
      const { error, id } = errorOf(line);
      expect(error.code).toBe('INVALID_REQUEST');
      expect(error.message).toContain(`JSON but ${kind}, not an object`);
      expect(error.message).toContain('{"op":"mcp_list"}');
      expect(id).toBeUndefined();
    }
  });

  it('names an unknown op, guesses the intended one, and echoes the id', () => {
    expect(errorOf('{"op":"mcp_lsit","id":3}')).toEqual({
      ok: false,
      id: 3,
      error: {
        code: 'UNKNOWN_OP',
        message: 'Unknown op "mcp_lsit". Did you mean "mcp_list"? Example: {"op":"mcp_list"}',
      },
    });
    const far = errorOf('{"op":"launch_rockets"}').error;
    expect(far.code).toBe('UNKNOWN_OP');
    expect(far.message).toContain('Use one of mcp_list, mcp_set, mcp_remove, mcp_toggle, call, resolve.');
    expect(errorOf('{"id":"x"}')).toMatchObject({
      id: 'x',
      error: { code: 'INVALID_FIELD', message: expect.stringContaining('Field "op" is missing') },
    });
  });

  it('names a missing or mistyped field and shows a line that works', () => {
    const missing = errorOf('{"op":"mcp_remove","id":"r1"}');
    expect(missing.id).toBe('r1');
    expect(missing.error.code).toBe('INVALID_FIELD');
    expect(missing.error.message).toBe(
      'mcp_remove: field "name" is missing. Give the server\'s name as a string, e.g. "weather". ' +
        'Example: {"op":"mcp_remove","name":"weather"}',
    );
    const mistyped = errorOf('{"op":"mcp_toggle","name":"w","enabled":"no"}').error;
    expect(mistyped.message).toMatch(/^mcp_toggle: field "enabled": expected boolean/);
    expect(errorOf('{"op":"mcp_set","server":{"command":"x"}}').error.message).toContain(
      'field "server.name" is missing',
    );
    expect(errorOf('{"op":"call","tool":""}').error.message).toMatch(/^call: field "tool": /);
  });

  it('refuses unknown fields, suggesting the likely one', () => {
    const typo = errorOf('{"op":"call","tool":"t","argumnets":{}}').error;
    expect(typo).toEqual({
      code: 'INVALID_FIELD',
      message: expect.stringContaining('unknown field "argumnets". Did you mean "arguments"?'),
    });
  });

  it('refuses an id that is neither a string nor a number, without echoing it', () => {
    const bad = errorOf('{"op":"mcp_list","id":{"a":1}}');
    expect(bad.id).toBeUndefined();
    expect(bad.error).toMatchObject({ code: 'INVALID_FIELD', message: expect.stringContaining('"id"') });
  });
});
