import { describe, expect, it } from 'vitest';
import { checkFormContent, formFields, secretFieldNames } from '../../../src/host/inbox/elicitation-form.js';
import { readFieldText } from '../../../src/host/inbox/field-text.js';

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', description: 'Full name', maxLength: 5 },
    size: { type: 'string', enum: ['s', 'm'], enumNames: ['Small', 'Medium'] },
    colour: { type: 'string', oneOf: [{ const: '#f00', title: 'Red' }] },
    toppings: {
      type: 'array',
      items: {
        anyOf: [
          { const: 'ham', title: 'Ham' },
          { const: 'egg', title: 'Egg' },
        ],
      },
    },
    count: { type: 'number', default: 2 },
    max_tokens: { type: 'integer' },
    card_passphrase: { type: 'string' },
  },
  required: ['name'],
} as const;

describe('formFields', () => {
  it('describes every field in order, with kind, choices, default and secrecy', () => {
    const fields = formFields(schema);
    expect(fields.map((f) => [f.name, f.kind, f.title, f.required, f.secret])).toEqual([
      ['name', 'string', 'Name', true, false],
      ['size', 'choice', 'size', false, false],
      ['colour', 'choice', 'colour', false, false],
      ['toppings', 'choices', 'toppings', false, false],
      ['count', 'number', 'count', false, false],
      ['max_tokens', 'integer', 'max_tokens', false, false],
      ['card_passphrase', 'string', 'card_passphrase', false, true],
    ]);
    expect(fields[0]!.description).toBe('Full name');
    expect(fields[1]!.choices).toEqual([
      { value: 's', title: 'Small' },
      { value: 'm', title: 'Medium' },
    ]);
    expect(fields[2]!.choices).toEqual([{ value: '#f00', title: 'Red' }]);
    expect(fields[3]!.choices?.map((c) => c.value)).toEqual(['ham', 'egg']);
    expect(fields[4]!.default).toBe(2);
    expect(secretFieldNames(schema)).toEqual(['card_passphrase']);
    expect(formFields(undefined)).toEqual([]);
  });
});

describe('checkFormContent', () => {
  it('keeps only the form fields, copying lists', () => {
    const toppings = ['egg'];
    const content = checkFormContent(schema, { name: 'Ann', toppings, count: 1.5, colour: '#f00' });
    expect(content).toEqual({ name: 'Ann', toppings: ['egg'], count: 1.5, colour: '#f00' });
    expect(content.toppings).not.toBe(toppings);
  });

  it('treats an absent answer as empty, and null as absent', () => {
    expect(checkFormContent({ type: 'object', properties: {} }, undefined)).toEqual({});
    expect(checkFormContent(schema, { name: 'Ann', size: null })).toEqual({ name: 'Ann' });
  });
});

describe('readFieldText', () => {
  const fields = Object.fromEntries(formFields(schema).map((f) => [f.name, f]));

  it('converts typed text to the field type', () => {
    expect(readFieldText(fields.size!, 'medium')).toEqual({ kind: 'value', value: 'm' });
    expect(readFieldText(fields.size!, '1')).toEqual({ kind: 'value', value: 's' });
    expect(readFieldText(fields.toppings!, 'egg, 1, egg')).toEqual({ kind: 'value', value: ['egg', 'ham'] });
    expect(readFieldText(fields.count!, ' 3.5 ')).toEqual({ kind: 'value', value: 3.5 });
    expect(readFieldText(fields.count!, '')).toEqual({ kind: 'value', value: 2 });
    expect(readFieldText(fields.max_tokens!, '')).toEqual({ kind: 'skip' });
    expect(readFieldText(fields.name!, '')).toEqual({ kind: 'problem', problem: 'is required' });
  });

  it('words problems without repeating what was typed', () => {
    for (const [field, text] of [
      ['size', 'xl-secret'],
      ['toppings', '3-secret'],
      ['max_tokens', '1.5'],
      ['count', 'two-secret'],
      ['name', 'too-long-secret'],
    ] as const) {
      const reading = readFieldText(fields[field]!, text);
      expect(reading.kind).toBe('problem');
      expect(JSON.stringify(reading)).not.toContain('secret');
    }
  });
});
