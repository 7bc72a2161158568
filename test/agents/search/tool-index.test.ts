import type { Tool } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import {
  createToolIndex,
  DEFAULT_SEARCH_LIMIT,
  MAX_SEARCH_LIMIT,
  type ToolIndexEntry,
} from '../../../src/agents/search/tool-index.js';
import { isSwitchboardError } from '../../../src/core/errors.js';

const entry = (
  server: string,
  name: string,
  description: string,
  extra: Partial<Tool> = {},
): ToolIndexEntry => ({
  name: `mcp__${server}__${name}`,
  server,
  tool: { name, description, inputSchema: { type: 'object' }, ...extra },
});

const CATALOG: ToolIndexEntry[] = [
  entry('fs', 'read_file', 'Read the complete contents of a file as text. Only within allowed directories.', {
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string' }, tail: { type: 'number' }, head: { type: 'number' } },
      required: ['path'],
    },
  }),
  entry('fs', 'write_file', 'Create a new file or overwrite an existing one with new content.'),
  entry('fs', 'list_directory', 'Get a listing of the entries in a directory.'),
  entry('fs', 'remove_file', 'Delete a file from disk.'),
  entry('github', 'create_issue', 'Open a new issue in a repository.'),
  entry('github', 'list_issues', 'List issues of a repository, filtered by state.'),
  entry('github', 'get_file_contents', 'Get the contents of a file in a repository.'),
  entry('tracker', 'create_issue', 'Create an issue in the bug tracker.'),
  entry('tracker', 'list_issues', 'List issues of a project.'),
  entry('memory', 'create_entities', 'Create new entities in the knowledge graph.', {
    inputSchema: {
      type: 'object',
      properties: {
        entities: {
          type: 'array',
          items: {
            type: 'object',
            properties: { observations: { type: 'array', items: { type: 'string' } } },
          },
        },
      },
    },
  }),
  entry('billing', 'charge_card', 'Charge a customer.', {
    inputSchema: {
      type: 'object',
      properties: { total: { $ref: '#/$defs/Money' } },
      $defs: { Money: { type: 'object', properties: { currency: { type: 'string' } } } },
    },
  }),
];

const index = createToolIndex(CATALOG);
const names = (query: string, options?: Parameters<typeof index.search>[1]) =>
  index.search(query, options).map((h) => h.name);

describe('createToolIndex', () => {
  it('indexes every entry', () => {
    expect(index.size).toBe(CATALOG.length);
    expect(createToolIndex([]).search('anything')).toEqual([]);
  });

  it('ranks the tool whose name matches above tools that only mention the words', () => {
    expect(names('read file')[0]).toBe('mcp__fs__read_file');
    expect(names('write a file')[0]).toBe('mcp__fs__write_file');
    expect(names('directory listing')[0]).toBe('mcp__fs__list_directory');
  });

  it('returns compact hits: catalog name, server, first sentence, parameters, why, score, coverage', () => {
    const [hit] = index.search('read file', { limit: 1 });
    expect(hit).toEqual({
      name: 'mcp__fs__read_file',
      server: 'fs',
      description: 'Read the complete contents of a file as text.',
      params: 'path*, tail?, head?',
      why: 'read in name; file in name',
      score: expect.any(Number),
      coverage: 1,
    });
    expect(Object.keys(hit!).sort()).toEqual([
      'coverage',
      'description',
      'name',
      'params',
      'score',
      'server',
      'why',
    ]);
  });

  it('says why each hit matched: the tool word, the query word it stood for, and where', () => {
    const [hit] = index.search('erase a file', { limit: 1 });
    expect(hit?.name).toBe('mcp__fs__remove_file');
    expect(hit?.why).toBe('remove (for "erase") in name; file in name');
    const [nested] = index.search('observations', { limit: 1 });
    expect(nested?.why).toBe('observations in parameters');
  });

  it('reaches a word the catalog does not use through words near it in meaning', () => {
    const social = createToolIndex([
      entry('social', 'post_update', 'Post a status update to the timeline.'),
      entry('social', 'list_followers', 'List the accounts that follow you.'),
    ]);
    const [hit] = social.search('tweet that the release is out', { limit: 1 });
    expect(hit?.name).toBe('mcp__social__post_update');
    expect(hit?.why).toContain('post (near "tweet") in name');
    // A word the catalog uses is matched as itself, not through its neighbours.
    expect(social.search('follow', { limit: 5 }).map((h) => h.name)).toEqual(['mcp__social__list_followers']);
  });

  it('lifts the matching tools of a server whose own description uses the query words', () => {
    const tools = [
      entry('alpha', 'search', 'Search the index.'),
      entry('beta', 'search', 'Search the index.'),
    ];
    const plain = createToolIndex(tools);
    expect(plain.search('search documentation', { limit: 1 })[0]?.name).toBe('mcp__alpha__search');
    const described = createToolIndex(tools, {
      servers: [{ name: 'beta', description: 'Up-to-date library documentation' }],
    });
    expect(described.search('search documentation', { limit: 1 })[0]?.name).toBe('mcp__beta__search');
    // Words the server does not say leave the order alone.
    expect(described.search('search', { limit: 1 })[0]?.name).toBe('mcp__alpha__search');
  });

  it('tells how much of the query a hit covered', () => {
    const [full] = index.search('charge a customer', { limit: 1 });
    expect(full).toMatchObject({ name: 'mcp__billing__charge_card', coverage: 1 });
    const [partial] = index.search('charge the zeppelin quickly', { limit: 1 });
    expect(partial?.coverage).toBeLessThan(0.5);
  });

  it('does not expand short words by prefix into unrelated ones', () => {
    const tools = createToolIndex([
      entry('shell', 'run_command', 'Run a shell command.'),
      entry('notes', 'add_note', 'Add a note.'),
    ]);
    // "com" once matched command, comment and company by prefix; "not" once met "note".
    expect(tools.search('com', { limit: 5 })).toEqual([]);
    expect(tools.search('not', { limit: 5 })).toEqual([]);
  });

  it('orders hits by descending score, ties by name', () => {
    const hits = index.search('issue', { limit: 25 });
    expect(hits.length).toBeGreaterThan(2);
    for (let i = 1; i < hits.length; i++) {
      const [a, b] = [hits[i - 1]!, hits[i]!];
      expect(a.score > b.score || (a.score === b.score && a.name < b.name)).toBe(true);
    }
  });

  it('gives an exact tool name the first place, written as a name or as words', () => {
    expect(names('get_file_contents')[0]).toBe('mcp__github__get_file_contents');
    expect(names('mcp__fs__list_directory')[0]).toBe('mcp__fs__list_directory');
    // Without the bonus the tool that repeats the words most would win.
    const small = createToolIndex([
      entry('a', 'search', 'Search.'),
      entry('b', 'search_code', 'Search code: search source code, search files, search everything.'),
    ]);
    expect(small.search('search').map((h) => h.name)).toEqual(['mcp__a__search', 'mcp__b__search_code']);
    expect(small.search('search code')[0]!.name).toBe('mcp__b__search_code');
  });

  it('favours the server a query names', () => {
    expect(names('github issues').slice(0, 2).sort()).toEqual([
      'mcp__github__create_issue',
      'mcp__github__list_issues',
    ]);
    expect(names('tracker issues').slice(0, 2).sort()).toEqual([
      'mcp__tracker__create_issue',
      'mcp__tracker__list_issues',
    ]);
    // Named alone, a server still brings its tools up.
    expect(names('memory')).toEqual(['mcp__memory__create_entities']);
  });

  it('matches synonyms and prefixes, below the word itself', () => {
    expect(names('erase a file')[0]).toBe('mcp__fs__remove_file');
    expect(names('folder contents')).toContain('mcp__fs__list_directory');
    expect(names('direc')[0]).toBe('mcp__fs__list_directory');
    const remove = index.search('remove a file from disk').find((h) => h.name === 'mcp__fs__remove_file')!;
    const erase = index.search('erase a file from disk').find((h) => h.name === 'mcp__fs__remove_file')!;
    expect(erase.score).toBeLessThan(remove.score);
  });

  it('counts query words that are synonyms of each other once', () => {
    const small = createToolIndex([
      entry('a', 'create_widget', 'Create a widget.'),
      entry('a', 'get_widget', 'Get a widget.'),
    ]);
    const score = (query: string) =>
      small.search(query).find((h) => h.name === 'mcp__a__create_widget')!.score;
    expect(score('make new widget')).toBe(score('make widget'));
  });

  it('reads two adjacent query words as the one word the catalog uses', () => {
    const small = createToolIndex([
      entry('m', 'open_nodes', 'Open nodes by name.'),
      entry('m', 'search_nodes', 'Search nodes by name.'),
    ]);
    expect(small.search('look up nodes by name')[0]!.name).toBe('mcp__m__search_nodes');
    // Without the compound both tie, and the tie goes to the name first in order.
    expect(small.search('nodes by name')[0]!.name).toBe('mcp__m__open_nodes');
  });

  it("searches a tool's display name from its annotations when it has no title", () => {
    const index = createToolIndex([
      entry('crm', 'op_17', 'Runs operation 17.', { annotations: { title: 'Merge duplicate contacts' } }),
      entry('crm', 'op_18', 'Runs operation 18.'),
    ]);
    expect(index.search('merge duplicate contacts')[0]).toMatchObject({ name: 'mcp__crm__op_17' });
    expect(index.search('merge duplicate contacts')[0]!.why).toContain('in title');
  });

  it('searches nested parameter names and definitions reached by $ref', () => {
    expect(names('observations')[0]).toBe('mcp__memory__create_entities');
    expect(names('currency')[0]).toBe('mcp__billing__charge_card');
  });

  it('returns at most the limit: 5 by default, clamped to 1…25', () => {
    const many = createToolIndex(
      Array.from({ length: 40 }, (_, i) => entry('s', `tool_${i}`, `Does widget work number ${i}.`)),
    );
    expect(many.search('widget')).toHaveLength(DEFAULT_SEARCH_LIMIT);
    expect(many.search('widget', { limit: 7 })).toHaveLength(7);
    expect(many.search('widget', { limit: 100 })).toHaveLength(MAX_SEARCH_LIMIT);
    expect(many.search('widget', { limit: 0 })).toHaveLength(1);
    expect(many.search('widget', { limit: Number.NaN })).toHaveLength(DEFAULT_SEARCH_LIMIT);
  });

  it('keeps only the servers asked for', () => {
    const hits = index.search('issue', { servers: ['tracker'], limit: 25 });
    expect(hits.map((h) => h.name).sort()).toEqual([
      'mcp__tracker__create_issue',
      'mcp__tracker__list_issues',
    ]);
    expect(index.search('issue', { servers: ['nowhere'] })).toEqual([]);
    expect(index.search('issue', { servers: [], limit: 25 }).length).toBeGreaterThan(2);
  });

  it('returns nothing for a query of stop words or unknown words', () => {
    expect(index.search('the of and')).toEqual([]);
    expect(index.search('zzyzx')).toEqual([]);
  });

  it('rejects an empty or blank query with a coded error that says what to do', () => {
    for (const query of ['', '   \n\t']) {
      let caught: unknown;
      try {
        index.search(query);
      } catch (error) {
        caught = error;
      }
      expect(isSwitchboardError(caught, 'INVALID_ARGUMENT')).toBe(true);
      expect((caught as Error).message).toMatch(/describe the tool you are looking for/);
    }
  });

  it('gives the same results for the same query', () => {
    expect(index.search('create issue', { limit: 25 })).toEqual(index.search('create issue', { limit: 25 }));
  });
});
