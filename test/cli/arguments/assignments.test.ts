import { describe, expect, it } from 'vitest';
import { missingRequired, parseAssignments } from '../../../src/cli/arguments/assignments.js';
import { UsageError } from '../../../src/cli/cli-context.js';

const schema = {
  type: 'object',
  properties: {
    text: { type: 'string' },
    times: { type: 'integer', default: 1 },
    ratio: { type: 'number' },
    loud: { type: 'boolean' },
    color: { type: 'string', enum: ['red', 'green'] },
    level: { enum: [1, 2, 3] },
    tags: { type: 'array', items: { type: 'string' } },
    sizes: { type: 'array', items: { type: 'integer' } },
    filter: {
      type: 'object',
      properties: { state: { type: 'string' }, limit: { type: 'integer' } },
      additionalProperties: false,
    },
    note: { type: ['string', 'null'] },
    when: { anyOf: [{ type: 'integer' }, { type: 'string', format: 'date' }] },
    item: { $ref: '#/$defs/Item' },
  },
  required: ['text'],
  $defs: { Item: { type: 'object', properties: { id: { type: 'integer' } } } },
};

function usageMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a UsageError');
}

describe('parseAssignments', () => {
  it('types values by the schema', () => {
    expect(
      parseAssignments(['text=01234', 'times=3', 'ratio=-2.5', 'loud=yes', 'color=green', 'level=2'], schema),
    ).toEqual({ text: '01234', times: 3, ratio: -2.5, loud: true, color: 'green', level: 2 });
  });

  it('keeps everything after the first "=" in the value, spaces and all', () => {
    expect(parseAssignments(['text=a=b c'], schema)).toEqual({ text: 'a=b c' });
    expect(parseAssignments(['text='], schema)).toEqual({ text: '' });
  });

  it('takes JSON for objects and arrays, and repeated keys for array items', () => {
    expect(parseAssignments(['filter={"state":"open"}', 'tags=["a","b"]'], schema)).toEqual({
      filter: { state: 'open' },
      tags: ['a', 'b'],
    });
    expect(parseAssignments(['tags=a', 'tags=b', 'sizes=1', 'sizes=2'], schema)).toEqual({
      tags: ['a', 'b'],
      sizes: [1, 2],
    });
  });

  it('sets nested fields with dotted keys, typed by the nested schema', () => {
    expect(parseAssignments(['filter.state=open', 'filter.limit=5', 'item.id=7'], schema)).toEqual({
      filter: { state: 'open', limit: 5 },
      item: { id: 7 },
    });
  });

  it('sends key:=json as it is, whatever the schema says', () => {
    expect(parseAssignments(['text:="quoted"', 'times:="3"'], schema)).toEqual({
      text: 'quoted',
      times: '3',
    });
    expect(usageMessage(() => parseAssignments(['times:={'], schema))).toContain('"times:=" needs JSON');
  });

  it('prefers null and numbers over text in unions, and falls back to text', () => {
    expect(parseAssignments(['note=null'], schema)).toEqual({ note: null });
    expect(parseAssignments(['note=hi'], schema)).toEqual({ note: 'hi' });
    expect(parseAssignments(['when=5'], schema)).toEqual({ when: 5 });
    expect(parseAssignments(['when=2024-01-01'], schema)).toEqual({ when: '2024-01-01' });
  });

  it('guesses types where the schema declares none', () => {
    const open = { type: 'object' };
    expect(parseAssignments(['n=5', 'b=false', 'z=null', 'o={"a":1}', 's=01', 't=hello'], open)).toEqual({
      n: 5,
      b: false,
      z: null,
      o: { a: 1 },
      s: '01',
      t: 'hello',
    });
    expect(parseAssignments(['x=1'], undefined)).toEqual({ x: 1 });
  });

  it('says what a parameter expects when the value does not fit', () => {
    expect(usageMessage(() => parseAssignments(['times=1.5'], schema))).toBe(
      '"times" must be an integer, not "1.5".',
    );
    expect(usageMessage(() => parseAssignments(['loud=maybe'], schema))).toBe(
      '"loud" must be a boolean, not "maybe".',
    );
    expect(usageMessage(() => parseAssignments(['color=blue'], schema))).toBe(
      '"color" must be one of "red", "green", not "blue".',
    );
    expect(usageMessage(() => parseAssignments(['filter=open'], schema))).toBe(
      '"filter" must be an object, not "open" (write it as JSON).',
    );
    expect(usageMessage(() => parseAssignments(['sizes=x'], schema))).toBe(
      '"sizes[]" must be an integer, not "x".',
    );
  });

  it('refuses parameters the schema does not have, suggesting the closest', () => {
    expect(usageMessage(() => parseAssignments(['txt=hi'], schema))).toMatch(
      /^Unknown parameter "txt"; did you mean "text"\? It takes: text, times, /,
    );
    expect(usageMessage(() => parseAssignments(['filter.sate=x'], schema))).toBe(
      'Unknown parameter "filter.sate"; did you mean "state"? It takes: state, limit.',
    );
    expect(usageMessage(() => parseAssignments(['zzz=1'], schema))).toMatch(
      /^Unknown parameter "zzz"\. It takes:/,
    );
  });

  it('refuses words that are not assignments, and a value given twice', () => {
    expect(usageMessage(() => parseAssignments(['hello'], schema))).toContain('is not an argument');
    expect(usageMessage(() => parseAssignments(['=x'], schema))).toContain('is not an argument');
    expect(usageMessage(() => parseAssignments(['a..b=x'], schema))).toContain('empty name');
    expect(usageMessage(() => parseAssignments(['text=a', 'text=b'], schema))).toBe(
      '"text" is given twice; give it once.',
    );
    expect(usageMessage(() => parseAssignments(['text=a', 'text.x=b'], schema))).toContain(
      'also used as an object',
    );
  });

  it('treats a parameter literally named with a dot as one name', () => {
    const dotted = { type: 'object', properties: { 'a.b': { type: 'integer' } } };
    expect(parseAssignments(['a.b=2'], dotted)).toEqual({ 'a.b': 2 });
  });
});

describe('missingRequired', () => {
  it('names the required parameters not given', () => {
    expect(missingRequired({}, schema)).toEqual(['text']);
    expect(missingRequired({ text: '' }, schema)).toEqual([]);
    expect(missingRequired({}, { type: 'object' })).toEqual([]);
  });
});
