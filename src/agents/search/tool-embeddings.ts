import { describeError } from '../../core/errors.js';
import type { EmbeddingProvider } from './embedding-provider.js';
import type { SearchableTool } from './tool-fields.js';

/**
 * Tool and query embeddings for `search_tools`, from a user's provider: each definition is
 * embedded once and kept under its definition hash (catalog.ts), so a reconnect or a new
 * catalog snapshot costs nothing for tools that did not change. Filling runs in the
 * background, one batch at a time; a search never waits for it past its deadline, and a
 * failing endpoint is left alone for a while before it is tried again.
 */

/** A tool to embed: its definition and the hash of it. A `CatalogTool` fits. */
export interface EmbeddableTool {
  readonly hash: string;
  readonly tool: SearchableTool;
}

/** Options of {@link createToolEmbeddings}. */
export interface ToolEmbeddingsOptions {
  readonly provider: EmbeddingProvider;
  /** How long a search waits for embeddings before ranking offline. */
  readonly timeoutMs: number;
  /** Texts per request when embedding tools (default 32). */
  readonly batchSize?: number;
  /** Bound of one background request (default 30 s). */
  readonly fillTimeoutMs?: number;
  /** After a failed request, how long before the endpoint is tried again (default 30 s). */
  readonly retryAfterMs?: number;
  /** Vectors kept at most; the oldest go first (default 50,000). */
  readonly maxEntries?: number;
  /** Clock, for tests. */
  readonly now?: () => number;
}

/** What a search gets: the query's vector, the tools' (where known), and what went wrong. */
export interface SearchEmbeddings {
  readonly query?: Float32Array;
  readonly tools: readonly (Float32Array | undefined)[];
  /** Why embeddings were not (all) used, in words for the model; absent when they were. */
  readonly problem?: string;
}

/** The embeddings of one provider, shared by every search of a host. */
export interface ToolEmbeddings {
  readonly timeoutMs: number;
  /** Embeds `query` and whatever of `tools` is missing, waiting at most `timeoutMs`. */
  forSearch(query: string, tools: readonly EmbeddableTool[], signal?: AbortSignal): Promise<SearchEmbeddings>;
  /** Vectors cached, for tests and status. */
  readonly size: number;
}

/** A definition's text as embedded: its names, then what it says it does. */
export function embeddingText(tool: SearchableTool): string {
  const title = tool.title ?? tool.annotations?.title;
  const params = Object.keys((tool.inputSchema.properties as Record<string, unknown> | undefined) ?? {});
  return [tool.name, title, tool.description, params.length > 0 ? `Parameters: ${params.join(', ')}` : '']
    .filter(Boolean)
    .join('\n')
    .slice(0, 2_000);
}

export function createToolEmbeddings(options: ToolEmbeddingsOptions): ToolEmbeddings {
  const { provider, timeoutMs } = options;
  const batchSize = options.batchSize ?? 32;
  const fillTimeoutMs = options.fillTimeoutMs ?? 30_000;
  const retryAfterMs = options.retryAfterMs ?? 30_000;
  const maxEntries = options.maxEntries ?? 50_000;
  const now = options.now ?? Date.now;
  const cache = new Map<string, Float32Array>();
  let filling: Promise<void> | undefined;
  let failedAt = Number.NEGATIVE_INFINITY;
  let lastProblem: string | undefined;

  const remember = (hash: string, vector: Float32Array) => {
    cache.set(hash, vector);
    if (cache.size > maxEntries) cache.delete(cache.keys().next().value!);
  };

  /** Embeds the tools not cached yet, batch by batch; one fill at a time. */
  const fill = (tools: readonly EmbeddableTool[]): Promise<void> => {
    if (filling) return filling;
    const missing = [...new Map(tools.filter((t) => !cache.has(t.hash)).map((t) => [t.hash, t])).values()];
    if (missing.length === 0 || now() - failedAt < retryAfterMs) return Promise.resolve();
    filling = (async () => {
      try {
        for (let i = 0; i < missing.length; i += batchSize) {
          const batch = missing.slice(i, i + batchSize);
          const vectors = await provider.embed(
            batch.map((t) => embeddingText(t.tool)),
            AbortSignal.timeout(fillTimeoutMs),
          );
          for (const [k, t] of batch.entries()) remember(t.hash, vectors[k]!);
        }
        lastProblem = undefined;
      } catch (error) {
        failedAt = now();
        lastProblem = describeError(error);
      } finally {
        filling = undefined;
      }
    })();
    return filling;
  };

  return {
    timeoutMs,
    get size() {
      return cache.size;
    },
    async forSearch(query, tools, signal) {
      const deadline = AbortSignal.timeout(timeoutMs);
      const bound = signal ? AbortSignal.any([signal, deadline]) : deadline;
      const waitedFill = new Promise<void>((resolve) => {
        fill(tools).then(resolve, resolve);
        bound.addEventListener('abort', () => resolve(), { once: true });
      });
      let vector: Float32Array | undefined;
      let problem: string | undefined;
      if (now() - failedAt < retryAfterMs && lastProblem !== undefined) problem = lastProblem;
      else
        try {
          [vector] = await provider.embed([query], bound);
        } catch (error) {
          problem = describeError(error);
          failedAt = now();
          lastProblem = problem;
        }
      await waitedFill;
      const vectors = tools.map((t) => cache.get(t.hash));
      const known = vectors.filter(Boolean).length;
      if (problem === undefined && known < tools.length)
        problem =
          lastProblem ??
          `embeddings of ${tools.length - known} of ${tools.length} tools are still being computed`;
      return { ...(vector && { query: vector }), tools: vectors, ...(problem !== undefined && { problem }) };
    },
  };
}
