import { describe, expect, it } from 'vitest';
import { describeSchema, type FieldSpec } from '../../../web/forms/describe-schema.js';
import { collectValue, type FormValue, initialValue, toFormValue } from '../../../web/forms/form-values.js';

/** The form generator's decisions (JSON Schema → fields, form values → JSON), without a browser. */

// As the demo weather server and @modelcontextprotocol/server-filesystem publish them.
const FORECAST = {
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 1, maxLength: 80, description: 'A city name, e.g. "Lisbon".' },
    days: {
      type: 'integer',
      minimum: 1,
      maximum: 7,
      default: 3,
      description: 'How many days, 1–7 (default 3).',
    },
  },
  required: ['city'],
  additionalProperties: false,
};
const EDIT_FILE = {
  type: 'object',
  properties: {
    path: { type: 'string' },
    edits: {
      type: 'array',
      items: {
        type: 'object',
        properties: { oldText: { type: 'string' }, newText: { type: 'string' } },
        required: ['oldText', 'newText'],
      },
    },
    dryRun: { type: 'boolean', default: false },
  },
  required: ['path', 'edits'],
};

function fields(spec: FieldSpec) {
  if (spec.kind !== 'object') throw new Error(`expected an object, got ${spec.kind}`);
  return Object.fromEntries(spec.fields.map((f) => [f.name, f]));
}

describe('describeSchema', () => {
  it('describes a tool schema field by field, with limits, defaults and required marks', () => {
    const { city, days } = fields(describeSchema(FORECAST));
    expect(city).toMatchObject({ required: true, spec: { kind: 'string', multiline: false, secret: false } });
    expect(city?.spec).toMatchObject({
      minLength: 1,
      maxLength: 80,
      description: 'A city name, e.g. "Lisbon".',
    });
    expect(days).toMatchObject({
      required: false,
      spec: { kind: 'number', integer: true, minimum: 1, maximum: 7, default: 3 },
    });
  });

  it('describes arrays of objects, and booleans with defaults', () => {
    const { edits, dryRun } = fields(describeSchema(EDIT_FILE));
    expect(edits?.spec.kind).toBe('array');
    if (edits?.spec.kind !== 'array') return;
    expect(Object.keys(fields(edits.spec.items))).toEqual(['oldText', 'newText']);
    expect(dryRun?.spec).toEqual({ kind: 'boolean', default: false });
  });

  it('reads enums from enum, enum + enumNames, and titled oneOf consts; multi-select from array items', () => {
    const spec = describeSchema({
      type: 'object',
      properties: {
        sort: { type: 'string', enum: ['name', 'size'] },
        size: { type: 'string', enum: ['s', 'l'], enumNames: ['Small', 'Large'] },
        level: {
          oneOf: [
            { const: 1, title: 'Low' },
            { const: 2, title: 'High' },
          ],
        },
        tags: { type: 'array', items: { enum: ['a', 'b'] } },
      },
    });
    const f = fields(spec);
    expect(f.sort?.spec).toEqual({
      kind: 'enum',
      choices: [
        { value: 'name', label: 'name' },
        { value: 'size', label: 'size' },
      ],
    });
    expect(f.size?.spec).toMatchObject({
      choices: [
        { value: 's', label: 'Small' },
        { value: 'l', label: 'Large' },
      ],
    });
    expect(f.level?.spec).toMatchObject({
      kind: 'enum',
      choices: [
        { value: 1, label: 'Low' },
        { value: 2, label: 'High' },
      ],
    });
    expect(f.tags?.spec).toMatchObject({ kind: 'choices', choices: [{ value: 'a' }, { value: 'b' }] });
  });

  it('masks password formats, writeOnly fields and the secret fields it is told about', () => {
    const spec = describeSchema(
      {
        type: 'object',
        properties: {
          a: { type: 'string', format: 'password' },
          b: { type: 'string', writeOnly: true },
          api_key: { type: 'string' },
          name: { type: 'string' },
        },
      },
      { secretFields: ['api_key'] },
    );
    const f = fields(spec);
    expect([f.a, f.b, f.api_key, f.name].map((x) => x?.spec.kind === 'string' && x.spec.secret)).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });

  it('uses a textarea for long or multi-line text and the browser input types of known formats', () => {
    const f = fields(
      describeSchema({
        type: 'object',
        properties: {
          content: { type: 'string' },
          note: { type: 'string', maxLength: 5000 },
          short: { type: 'string', maxLength: 20 },
          mail: { type: 'string', format: 'email' },
          site: { type: 'string', format: 'uri' },
          day: { type: ['string', 'null'], format: 'date' },
        },
      }),
    );
    const shape = (name: string) => {
      const spec = f[name]?.spec;
      return spec?.kind === 'string' ? [spec.multiline, spec.inputType] : spec?.kind;
    };
    expect(['content', 'note', 'short', 'mail', 'site', 'day'].map(shape)).toEqual([
      [true, 'text'],
      [true, 'text'],
      [false, 'text'],
      [false, 'email'],
      [false, 'url'],
      [false, 'date'],
    ]);
  });

  it('falls back to a JSON field for what a form cannot express, keeping the rest a form', () => {
    const f = fields(
      describeSchema({
        type: 'object',
        properties: {
          ref: { $ref: '#/defs/x' },
          either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
          map: { type: 'object', additionalProperties: { type: 'string' } },
          list: { type: 'array' },
          plain: { type: 'string' },
        },
      }),
    );
    expect([f.ref, f.either, f.map, f.list, f.plain].map((x) => x?.spec.kind)).toEqual([
      'json',
      'json',
      'json',
      'json',
      'string',
    ]);
    expect(describeSchema(undefined)).toEqual({ kind: 'json', reason: 'no type given' });
  });
});

describe('collectValue', () => {
  const forecast = describeSchema(FORECAST);

  it('starts from the defaults and turns the form into JSON arguments', () => {
    const start = initialValue(forecast);
    expect(start).toEqual({ city: '', days: '3' });
    expect(collectValue(forecast, { city: 'Lisbon', days: '2' })).toEqual({
      value: { city: 'Lisbon', days: 2 },
      errors: [],
    });
  });

  it('names each field that is wrong, and what is wrong with it', () => {
    expect(collectValue(forecast, { city: '', days: '2.5' }).errors).toEqual([
      { path: 'city', message: 'Required.' },
      { path: 'days', message: 'A whole number.' },
    ]);
    expect(collectValue(forecast, { city: 'x'.repeat(81), days: '0' }).errors).toEqual([
      { path: 'city', message: 'At most 80 characters.' },
      { path: 'days', message: 'At least 1.' },
    ]);
    expect(collectValue(forecast, { city: 'Oslo', days: 'abc' }).errors).toEqual([
      { path: 'days', message: 'Not a number.' },
    ]);
  });

  it('leaves out optional fields left empty, but keeps a required array even when empty', () => {
    expect(collectValue(forecast, { city: 'Oslo', days: '' })).toEqual({
      value: { city: 'Oslo' },
      errors: [],
    });
    const edit = describeSchema(EDIT_FILE);
    expect(collectValue(edit, { path: 'a.txt', edits: [], dryRun: false }).value).toEqual({
      path: 'a.txt',
      edits: [],
      dryRun: false,
    });
  });

  it('collects arrays of objects, with the path of an item that is incomplete', () => {
    const edit = describeSchema(EDIT_FILE);
    const value: FormValue = {
      path: 'a.txt',
      edits: [
        { oldText: 'x', newText: 'y' },
        { oldText: 'z', newText: '' },
      ],
      dryRun: true,
    };
    expect(collectValue(edit, value).errors).toEqual([{ path: 'edits.1.newText', message: 'Required.' }]);
    const fixed = { ...value, edits: [{ oldText: 'x', newText: 'y' }] };
    expect(collectValue(edit, fixed)).toEqual({
      value: { path: 'a.txt', edits: [{ oldText: 'x', newText: 'y' }], dryRun: true },
      errors: [],
    });
  });

  it('sends enum values with their JSON type, and optional booleans only when set', () => {
    const spec = describeSchema({
      type: 'object',
      properties: {
        level: {
          oneOf: [
            { const: 1, title: 'Low' },
            { const: 2, title: 'High' },
          ],
        },
        flag: { type: 'boolean' },
        tags: { type: 'array', items: { enum: ['a', 'b', 'c'] } },
      },
    });
    expect(initialValue(spec)).toEqual({ level: '', flag: '', tags: [false, false, false] });
    expect(collectValue(spec, { level: '1', flag: '', tags: [true, false, true] }).value).toEqual({
      level: 2,
      tags: ['a', 'c'],
    });
    expect(collectValue(spec, { level: '', flag: 'false', tags: [false, false, false] }).value).toEqual({
      flag: false,
    });
  });

  it('parses JSON fields, and says where the JSON is broken', () => {
    const spec = describeSchema({
      type: 'object',
      properties: { map: { type: 'object', additionalProperties: {} } },
    });
    expect(collectValue(spec, { map: '{"a": 1}' }).value).toEqual({ map: { a: 1 } });
    const broken = collectValue(spec, { map: '{"a": ' });
    expect(broken.errors).toHaveLength(1);
    expect(broken.errors[0]?.path).toBe('map');
    expect(broken.errors[0]?.message).toMatch(/^Not valid JSON: /);
  });

  it('round-trips JSON through the form (raw JSON → form → JSON)', () => {
    const edit = describeSchema(EDIT_FILE);
    const args = { path: 'notes/a.md', edits: [{ oldText: 'old', newText: 'new' }], dryRun: true };
    expect(collectValue(edit, toFormValue(edit, args))).toEqual({ value: args, errors: [] });
    const forecastArgs = { city: 'Quito', days: 1 };
    expect(collectValue(forecast, toFormValue(forecast, forecastArgs)).value).toEqual(forecastArgs);
  });
});
