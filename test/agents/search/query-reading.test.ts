import { describe, expect, it } from 'vitest';
import { goalWords } from '../../../src/agents/search/goal-phrases.js';
import { queryValues } from '../../../src/agents/search/query-values.js';
import { createToolIndex, type ToolIndexEntry } from '../../../src/agents/search/tool-index.js';

const never = () => false;

describe('query values', () => {
  it('lets URLs, paths and file names count for nothing but name their kind', () => {
    const url = queryValues('go to https://example.com/docs now', never);
    expect(url.weights.get('exampl')).toBe(0);
    expect(url.kinds).toEqual(['url']);
    const file = queryValues('look at the picture logo.png', never);
    expect(file.weights.get('logo')).toBe(0);
    expect([...file.kinds].sort()).toEqual(['file', 'image']);
    expect(queryValues('list ./logs by size', never).kinds).toEqual(['file']);
    expect(queryValues('forward localhost:5432 here', never).kinds).toEqual(['port']);
  });

  it('lets names, numbers and quoted text count little, unless a server is named or the word is used plainly', () => {
    const { weights } = queryValues(
      'Link the person John to "Acme Widgets" in Memory, issue 42',
      (t) => t === 'memory',
    );
    expect(weights.get('john')).toBeLessThan(1);
    expect(weights.get('acm')).toBeLessThan(1);
    expect(weights.get('42')).toBeLessThan(1);
    expect(weights.has('memory')).toBe(false);
    // The first word is capitalised as a sentence starts, not as a name.
    expect(weights.has('link')).toBe(false);
    expect(queryValues('Notes: read the notes', never).weights.has('note')).toBe(false);
  });

  it('survives hostile input: long, odd and unbalanced text', () => {
    const long = `${'a/b.c '.repeat(2_000)}"unclosed 'quote ${'Name '.repeat(500)}`;
    const read = queryValues(long, never);
    expect(read.kinds).toContain('file');
    expect(queryValues('', never)).toEqual({ weights: new Map(), kinds: [] });
    expect(queryValues('""  ‘’ “” ::// ..', never).kinds).toBeDefined();
  });
});

describe('goal phrases', () => {
  it('reads what a question asks for', () => {
    expect(goalWords('which files take up the most space?')).toContain('size');
    expect(goalWords('How big is data.csv')).toContain('size');
    expect(goalWords('how high above sea level is Denver')).toContain('elevation');
    expect(goalWords('where is the station')).toContain('location');
    expect(goalWords('read a file')).toEqual([]);
  });
});

describe('reading a query in the index', () => {
  const entry = (server: string, name: string, description: string): ToolIndexEntry => ({
    name: `mcp__${server}__${name}`,
    server,
    tool: { name, description, inputSchema: { type: 'object' } },
  });
  const index = createToolIndex([
    entry('fs', 'list_directory_with_sizes', 'List the files of a directory with their sizes.'),
    entry('fs', 'read_media_file', 'Read an image or audio file.'),
    entry('ops', 'tail_logs', 'Show the latest logs of a service.'),
    entry('crm', 'update_logo', 'Replace the company logo.'),
  ]);

  it('finds the tool a question means, not the one its values name', () => {
    expect(index.search('which files in ./logs take up the most space?')[0]?.name).toBe(
      'mcp__fs__list_directory_with_sizes',
    );
    expect(index.search('look at the picture logo.png')[0]?.name).toBe('mcp__fs__read_media_file');
  });
});
