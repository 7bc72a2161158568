import { z } from 'zod';
import { parseSection } from './issue-text.js';

/**
 * The `search` section of a config file: an embedding provider for `search_tools`, for users
 * who have one. Off by default — search ranks offline by words and shipped tables of meaning
 * (docs/agents.md); with a provider, each tool definition is embedded once (cached by its
 * definition hash) and each query at search time, and the two rankings are fused. Any
 * endpoint that speaks the OpenAI embeddings API works: a hosted one, or a local model served
 * by llama.cpp, Ollama, vLLM or text-embeddings-inference on 127.0.0.1.
 *
 * ```jsonc
 * "search": {
 *   "embeddings": {
 *     "url": "http://127.0.0.1:11434/v1/embeddings",
 *     "model": "nomic-embed-text",
 *     "apiKeyEnv": "EMBEDDINGS_API_KEY",
 *     "timeoutMs": 1500
 *   }
 * }
 * ```
 */
export const DEFAULT_EMBEDDINGS_TIMEOUT_MS = 1500;

export const searchSchema = z
  .strictObject({
    embeddings: z
      .strictObject({
        url: z
          .url({ protocol: /^https?$/ })
          .describe('The endpoint: an OpenAI-compatible POST /v1/embeddings URL, in full.'),
        model: z.string().min(1).describe('The model name the endpoint expects.'),
        apiKeyEnv: z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
          .optional()
          .describe('The environment variable holding the API key (sent as a Bearer token); none: no key.'),
        dimensions: z.int().min(1).max(8192).optional().describe('Ask the model for this many dimensions.'),
        timeoutMs: z
          .int()
          .min(50)
          .max(60_000)
          .optional()
          .describe(
            `How long a search waits for the query's embedding before ranking offline. Default ${DEFAULT_EMBEDDINGS_TIMEOUT_MS}.`,
          ),
      })
      .optional()
      .describe('An embedding provider for search_tools; absent: search ranks offline.'),
  })
  .describe('How search_tools ranks; see docs/agents.md.');

export type SearchSection = z.infer<typeof searchSchema>;
export type EmbeddingsConfig = NonNullable<SearchSection['embeddings']>;

/** Validates the `search` section of `file`; a rejection names the file and the field. */
export function parseSearch(raw: unknown, file: string): SearchSection {
  return parseSection(searchSchema, 'search', raw, file);
}

/** The project's provider replaces the user's whole: fields of two endpoints do not mix. */
export function mergeSearch(user: SearchSection, project: SearchSection): SearchSection {
  return { ...user, ...project };
}
