/** Public API of the agents layer: lazy loading, meta-tools and LLM adapters. */
export {};
