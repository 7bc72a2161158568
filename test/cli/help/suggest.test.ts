import { describe, expect, it } from 'vitest';
import { closest, didYouMean, editDistance } from '../../../src/cli/help/suggest.js';

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and neighbour swaps as one edit each', () => {
    expect(editDistance('list', 'list')).toBe(0);
    expect(editDistance('lst', 'list')).toBe(1);
    expect(editDistance('lisst', 'list')).toBe(1);
    expect(editDistance('lost', 'list')).toBe(1);
    expect(editDistance('lsit', 'list')).toBe(1);
    expect(editDistance('LIST', 'list')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });
});

describe('closest', () => {
  const verbs = ['list', 'status', 'tools', 'describe', 'call', 'resources', 'read', 'prompts', 'prompt'];

  it('suggests near names, nearest first, and nothing for far ones', () => {
    expect(closest('lsit', verbs)).toEqual(['list']);
    expect(closest('tool', verbs)).toEqual(['tools']);
    expect(closest('promt', verbs)).toEqual(['prompt', 'prompts']);
    expect(closest('desc', verbs)).toEqual(['describe']);
    expect(closest('frobnicate', verbs)).toEqual([]);
    expect(closest('x', verbs)).toEqual([]);
    // The exact name is no suggestion.
    expect(closest('list', verbs)).toEqual([]);
  });

  it('words the suggestion', () => {
    expect(didYouMean('wether', ['weather', 'accounts', 'files'])).toBe(' Did you mean "weather"?');
    expect(didYouMean('promt', ['prompt', 'prompts'])).toBe(' Did you mean "prompt" or "prompts"?');
    expect(didYouMean('zzz', ['weather'])).toBe('');
  });
});
