import { describe, expect, it } from 'vitest';
import {
  firstSentence,
  MAX_LISTED_PARAMS,
  MAX_SUMMARY_LENGTH,
  paramSummary,
} from '../../../src/agents/search/tool-summary.js';

describe('firstSentence', () => {
  it('keeps the first sentence and collapses whitespace', () => {
    expect(firstSentence('Read a file.\n  Returns   its text. Only in allowed dirs.')).toBe('Read a file.');
    expect(firstSentence('  Echoes back the input string  ')).toBe('Echoes back the input string');
    expect(firstSentence('Done! Then more.')).toBe('Done!');
  });

  it('does not end a sentence at an abbreviation followed by lowercase', () => {
    expect(firstSentence('Amount in minor units, e.g. cents. Second sentence.')).toBe(
      'Amount in minor units, e.g. cents.',
    );
  });

  it('cuts a long sentence at a word and marks the cut', () => {
    const long = `${'word '.repeat(60)}end.`;
    const summary = firstSentence(long);
    expect(summary.length).toBeLessThanOrEqual(MAX_SUMMARY_LENGTH);
    expect(summary.endsWith('word…')).toBe(true);
  });

  it('gives an empty string for an empty description', () => {
    expect(firstSentence('')).toBe('');
  });
});

describe('paramSummary', () => {
  it('lists required parameters first, marked *, then optional ones, marked ?', () => {
    const schema = {
      type: 'object' as const,
      properties: { tail: { type: 'number' }, head: { type: 'number' }, path: { type: 'string' } },
      required: ['path'],
    };
    expect(paramSummary(schema)).toBe('path*, tail?, head?');
  });

  it('is empty for a tool without parameters', () => {
    expect(paramSummary({ type: 'object' })).toBe('');
    expect(paramSummary({ type: 'object', properties: {} })).toBe('');
  });

  it('counts the parameters past the limit instead of naming them', () => {
    const properties = Object.fromEntries(
      Array.from({ length: MAX_LISTED_PARAMS + 3 }, (_, i) => [`p${i}`, { type: 'string' }]),
    );
    const summary = paramSummary({ type: 'object', properties });
    expect(summary.split(', ')).toHaveLength(MAX_LISTED_PARAMS + 1);
    expect(summary.endsWith('… +3 more')).toBe(true);
  });
});
