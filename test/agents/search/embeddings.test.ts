import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toolEmbeddingsFromConfig } from '../../../src/agents/meta-tools/search-embeddings.js';
import { createOpenAIEmbeddings, parseEmbeddings } from '../../../src/agents/search/embedding-provider.js';
import { createToolEmbeddings, type EmbeddableTool } from '../../../src/agents/search/tool-embeddings.js';
import { createToolIndex, type ToolIndexEntry } from '../../../src/agents/search/tool-index.js';
import { parseSearch } from '../../../src/core/config/search-config.js';
import { isSwitchboardError } from '../../../src/core/errors.js';
import { type ScriptedEmbeddings, startScriptedEmbeddings } from './scripted-embeddings.js';

/**
 * The pluggable embedding provider, against a scripted OpenAI-compatible endpoint on
 * 127.0.0.1: vectors are fused with the offline ranking when the endpoint answers, and when
 * it fails, answers nonsense or hangs, search answers anyway, ranked offline, saying why.
 */
let endpoint: ScriptedEmbeddings;
beforeEach(async () => {
  // "florp" and "zorch" mean what "erase" does to this endpoint, and no table of the offline
  // ranking knows them, so only the embeddings can bring the tool up.
  endpoint = await startScriptedEmbeddings([['florp', 'zorch', 'erase']]);
});
afterEach(async () => {
  await endpoint.close();
});

const entry = (name: string, description: string): ToolIndexEntry & EmbeddableTool => ({
  name: `mcp__kv__${name}`,
  server: 'kv',
  hash: `hash-${name}-${description.length}`,
  tool: { name, description, inputSchema: { type: 'object' } },
});
const TOOLS = [
  entry('erase_bucket', 'Erase a bucket and all it holds.'),
  entry('list_buckets', 'List the buckets.'),
  entry('read_object', 'Read an object from a bucket.'),
];

describe('OpenAI-compatible embeddings', () => {
  it('embeds texts in order, as unit vectors, whatever order the endpoint answers in', async () => {
    const provider = createOpenAIEmbeddings({ url: endpoint.url, model: 'scripted' });
    const [a, b] = await provider.embed(['purge it', 'list it'], AbortSignal.timeout(10_000));
    expect(a!.length).toBe(64);
    expect(a!.reduce((s, x) => s + x * x, 0)).toBeCloseTo(1, 5);
    expect(a).not.toEqual(b);
    expect(endpoint.requests).toEqual([['purge it', 'list it']]);
  });

  it('turns an error status, a malformed answer, a wrong count and a dead endpoint into coded errors', async () => {
    const provider = createOpenAIEmbeddings({ url: endpoint.url, model: 'scripted' });
    const codeOf = async () => {
      try {
        await provider.embed(['a', 'b'], AbortSignal.timeout(10_000));
        return 'resolved';
      } catch (error) {
        return isSwitchboardError(error) ? error.code : String(error);
      }
    };
    endpoint.mode = 'error';
    expect(await codeOf()).toBe('UPSTREAM_HTTP');
    endpoint.mode = 'malformed';
    expect(await codeOf()).toBe('UPSTREAM_PROTOCOL');
    endpoint.mode = 'wrong-count';
    expect(await codeOf()).toBe('UPSTREAM_PROTOCOL');
    const url = endpoint.url;
    await endpoint.close();
    const dead = createOpenAIEmbeddings({ url, model: 'scripted' });
    await expect(dead.embed(['a'], AbortSignal.timeout(10_000))).rejects.toMatchObject({
      code: 'UPSTREAM_HTTP',
    });
    endpoint = await startScriptedEmbeddings([]);
  });

  it('gives up on a hanging endpoint when the signal says so', async () => {
    endpoint.mode = 'hang';
    const provider = createOpenAIEmbeddings({ url: endpoint.url, model: 'scripted' });
    const controller = new AbortController();
    const pending = provider.embed(['a'], controller.signal);
    await endpoint.nextRequest();
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'REQUEST_CANCELLED' });
  });

  it('rejects answers with holes: bad indices, non-numbers, mixed lengths, zero vectors', () => {
    const bad = [
      {
        data: [
          { index: 0, embedding: [1] },
          { index: 0, embedding: [1] },
        ],
      },
      {
        data: [
          { index: 0, embedding: ['1'] },
          { index: 1, embedding: [1] },
        ],
      },
      {
        data: [
          { index: 0, embedding: [1, 2] },
          { index: 1, embedding: [1] },
        ],
      },
      {
        data: [
          { index: 0, embedding: [0, 0] },
          { index: 1, embedding: [1, 1] },
        ],
      },
      {
        data: [
          { index: 5, embedding: [1] },
          { index: 1, embedding: [1] },
        ],
      },
      null,
      { data: 'no' },
    ];
    for (const body of bad) expect(() => parseEmbeddings(body, 2)).toThrow(/cannot use/);
  });
});

describe('search with embeddings', () => {
  it('fuses the embedding ranking with the offline one and says so in why', async () => {
    const embeddings = createToolEmbeddings({
      provider: createOpenAIEmbeddings({ url: endpoint.url, model: 'scripted' }),
      timeoutMs: 10_000,
    });
    const offline = createToolIndex(TOOLS);
    expect(offline.search('florp them')).toEqual([]);
    const got = await embeddings.forSearch('florp them', TOOLS);
    expect(got.problem).toBeUndefined();
    const index = createToolIndex(TOOLS, { embeddings: got.tools });
    const [first] = index.search('florp them', got.query ? { queryEmbedding: got.query } : {});
    expect(first?.name).toBe('mcp__kv__erase_bucket');
    expect(first?.why).toContain('by embedding');
    // With words that match, both rankings count: the word match stays in the answer.
    const both = index.search('zorch list buckets', got.query ? { queryEmbedding: got.query } : {});
    expect(
      both
        .slice(0, 2)
        .map((h) => h.name)
        .sort(),
    ).toEqual(['mcp__kv__erase_bucket', 'mcp__kv__list_buckets']);
    // Each definition is embedded once: a second search embeds only its query.
    await embeddings.forSearch('zorch a bucket', TOOLS);
    expect(endpoint.requests.map((r) => r.length)).toEqual([3, 1, 1]);
    expect(embeddings.size).toBe(3);
  });

  it('answers without embeddings, saying why, when the endpoint fails, and leaves it alone for a while', async () => {
    endpoint.mode = 'error';
    const embeddings = createToolEmbeddings({
      provider: createOpenAIEmbeddings({ url: endpoint.url, model: 'scripted' }),
      timeoutMs: 10_000,
    });
    const got = await embeddings.forSearch('florp a bucket', TOOLS);
    expect(got.query).toBeUndefined();
    expect(got.problem).toContain('HTTP 500');
    const seen = endpoint.requests.length;
    const again = await embeddings.forSearch('florp a bucket', TOOLS);
    expect(again.problem).toContain('HTTP 500');
    expect(endpoint.requests.length).toBe(seen);
  });

  it('does not wait past its deadline for a hanging endpoint', async () => {
    endpoint.mode = 'hang';
    const embeddings = createToolEmbeddings({
      provider: createOpenAIEmbeddings({ url: endpoint.url, model: 'scripted' }),
      timeoutMs: 200,
    });
    const got = await embeddings.forSearch('florp a bucket', TOOLS);
    expect(endpoint.requests.length).toBeGreaterThan(0);
    expect(got.query).toBeUndefined();
    expect(got.problem).toMatch(/did not answer in time/);
    expect(got.tools.every((v) => v === undefined)).toBe(true);
  });
});

describe('the search section of a config file', () => {
  it('accepts an endpoint and rejects bad fields by name', () => {
    expect(
      parseSearch({ embeddings: { url: 'http://127.0.0.1:1/v1/embeddings', model: 'm' } }, 'f.json'),
    ).toEqual({
      embeddings: { url: 'http://127.0.0.1:1/v1/embeddings', model: 'm' },
    });
    const fieldOf = (raw: unknown) => {
      try {
        parseSearch(raw, 'f.json');
        return 'accepted';
      } catch (error) {
        return isSwitchboardError(error, 'CONFIG_INVALID')
          ? (error.details as { field: string }).field
          : 'other';
      }
    };
    expect(fieldOf({ embeddings: { url: 'ftp://x/y', model: 'm' } })).toBe('search.embeddings.url');
    expect(fieldOf({ embeddings: { url: 'http://x/y' } })).toBe('search.embeddings.model');
    expect(fieldOf({ embeddings: { url: 'http://x/y', model: 'm', timeoutMs: 1 } })).toBe(
      'search.embeddings.timeoutMs',
    );
    expect(fieldOf({ embeddings: { url: 'http://x/y', model: 'm', key: 'sk' } })).toMatch(
      /^search\.embeddings/,
    );
  });

  it('reads the API key from the variable it names, and says when it is not set', () => {
    const config = { url: endpoint.url, model: 'm', apiKeyEnv: 'EMBED_KEY' };
    expect(() => toolEmbeddingsFromConfig(config, {})).toThrow(/EMBED_KEY, which is not set/);
    expect(toolEmbeddingsFromConfig(config, { EMBED_KEY: 'k' }).timeoutMs).toBe(1500);
  });
});
