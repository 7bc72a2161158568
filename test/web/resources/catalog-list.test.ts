import { describe, expect, it } from 'vitest';
import { describeSchema } from '../../../web/forms/describe-schema.js';
import { collectValue, initialValue } from '../../../web/forms/form-values.js';
import { groupByServer, matchesQuery } from '../../../web/resources/catalog-list.js';
import { stringFieldsSchema } from '../../../web/resources/string-fields.js';

/** The Resources and Prompts lists (filter, grouping) and their forms of text fields. */
describe('matchesQuery', () => {
  const fields = ['kitchen', 'text', undefined, 'kitchen://text', 'A text resource'];

  it('keeps an item when every word occurs in some field, in any case', () => {
    expect(matchesQuery(fields, '')).toBe(true);
    expect(matchesQuery(fields, '   ')).toBe(true);
    expect(matchesQuery(fields, 'KITCHEN')).toBe(true);
    expect(matchesQuery(fields, 'resource kitchen://')).toBe(true);
    expect(matchesQuery(fields, 'text blob')).toBe(false);
  });
});

describe('groupByServer', () => {
  it('groups by server in name order, sorting each group by the key', () => {
    const items = [
      { server: 'web', name: 'b' },
      { server: 'files', name: 'z' },
      { server: 'web', name: 'a' },
      { server: 'files', name: 'm' },
    ];
    expect(groupByServer(items, (i) => i.name)).toEqual([
      [
        'files',
        [
          { server: 'files', name: 'm' },
          { server: 'files', name: 'z' },
        ],
      ],
      [
        'web',
        [
          { server: 'web', name: 'a' },
          { server: 'web', name: 'b' },
        ],
      ],
    ]);
    expect(groupByServer([], (i: { server: string }) => i.server)).toEqual([]);
  });
});

describe('stringFieldsSchema', () => {
  it('makes a form of text fields with their help, where only the required ones must be filled', () => {
    const schema = stringFieldsSchema([
      { name: 'name', description: 'Who to greet', required: true },
      { name: 'tone' },
    ]);
    const spec = describeSchema(schema);
    expect(spec.kind).toBe('object');
    if (spec.kind !== 'object') return;
    expect(spec.fields.map((f) => [f.name, f.required, f.spec.kind, f.spec.description])).toEqual([
      ['name', true, 'string', 'Who to greet'],
      ['tone', false, 'string', undefined],
    ]);
    expect(collectValue(spec, initialValue(spec)).errors).toEqual([{ path: 'name', message: 'Required.' }]);
    // An empty optional argument is left out rather than sent as "".
    expect(collectValue(spec, { name: 'Ana', tone: '' })).toEqual({ value: { name: 'Ana' }, errors: [] });
  });
});
