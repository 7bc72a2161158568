import type { EmbeddingsConfig } from '../../core/config/search-config.js';
import { DEFAULT_EMBEDDINGS_TIMEOUT_MS } from '../../core/config/search-config.js';
import { SwitchboardError } from '../../core/errors.js';
import type { Host } from '../../host/host.js';
import { createOpenAIEmbeddings } from '../search/embedding-provider.js';
import { createToolEmbeddings, type ToolEmbeddings } from '../search/tool-embeddings.js';

/**
 * Which embedding provider `search_tools` uses on a host, if any: set once by whoever builds
 * the host (the app from the config's `search` section, or an embedding app with a provider
 * of its own), read by every search on it. Kept beside the host rather than in it: the host
 * governs calls to MCP servers and has no business with ranking.
 */
const byHost = new WeakMap<Host, ToolEmbeddings>();

/** Makes `search_tools` on `host` use `embeddings`; `undefined` turns it back to offline. */
export function useSearchEmbeddings(host: Host, embeddings: ToolEmbeddings | undefined): void {
  if (embeddings) byHost.set(host, embeddings);
  else byHost.delete(host);
}

/** The embeddings `search_tools` uses on `host`, if any. */
export function searchEmbeddingsOf(host: Host): ToolEmbeddings | undefined {
  return byHost.get(host);
}

/**
 * The embeddings a config's `search.embeddings` describes. The API key is read from the
 * environment variable it names; a variable that is not set is an error that says so.
 */
export function toolEmbeddingsFromConfig(
  config: EmbeddingsConfig,
  env: Readonly<Record<string, string | undefined>>,
): ToolEmbeddings {
  let apiKey: string | undefined;
  if (config.apiKeyEnv !== undefined) {
    apiKey = env[config.apiKeyEnv];
    if (!apiKey)
      throw new SwitchboardError(
        'ENV_VAR_MISSING',
        `search.embeddings.apiKeyEnv names ${config.apiKeyEnv}, which is not set; set it to the endpoint's API key, or remove apiKeyEnv for an endpoint without one.`,
        { details: { variable: config.apiKeyEnv } },
      );
  }
  return createToolEmbeddings({
    provider: createOpenAIEmbeddings({
      url: config.url,
      model: config.model,
      ...(apiKey !== undefined && { apiKey }),
      ...(config.dimensions !== undefined && { dimensions: config.dimensions }),
    }),
    timeoutMs: config.timeoutMs ?? DEFAULT_EMBEDDINGS_TIMEOUT_MS,
  });
}
