/**
 * A Standard Schema that accepts any result unchanged, for requests whose answer the caller
 * checks itself (custom and extension methods, raw list pages).
 */
export const passthroughSchema = {
  '~standard': {
    version: 1 as const,
    vendor: 'switchboard',
    validate: (value: unknown) => ({ value: value as Record<string, unknown> }),
  },
};
