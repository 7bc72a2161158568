import { z } from 'zod';
import type { FieldHints } from './issue-text.js';

/**
 * The raw shape of a server entry as people write it (zod), and how each field is written
 * (appended to type errors). Normalizing it into a ServerConfig is server-config.ts's job.
 */
export const SERVER_NAME_PATTERN = /^[A-Za-z0-9_.-]+$/;

const stringRecord = z.record(z.string(), z.string());
const seconds = z.number().positive();

/** `auth`: passed through to the client layer; only its `type` and a bearer `token` are checked. */
const authSchema = z
  .discriminatedUnion('type', [
    z.looseObject({ type: z.literal('bearer'), token: z.string().min(1) }),
    z.looseObject({
      type: z.literal('oauth'),
      clientId: z.string().optional(),
      clientSecret: z.string().optional(),
      scopes: z.array(z.string()).optional(),
    }),
  ])
  .describe(
    'How to authenticate to a remote server: { "type": "bearer", "token": "${TOKEN}" } or { "type": "oauth", … }.',
  );

/**
 * The fields of one server entry without its name: the value under `servers.<name>` in a
 * config file. Unknown fields are rejected (a typo must not be ignored silently).
 */
export const serverEntryFieldsSchema = z.strictObject({
  transport: z
    .enum(['stdio', 'http', 'sse'])
    .optional()
    .describe(
      'stdio (local process), http (Streamable HTTP) or sse (old HTTP+SSE). Inferred from command/url.',
    ),
  command: z.string().min(1).optional().describe('Program to run for a local (stdio) server.'),
  args: z.array(z.string()).optional().describe('Arguments for command.'),
  env: stringRecord.optional().describe('Environment for the local server, added to a small allowlist.'),
  cwd: z.string().optional().describe('Working directory of the local server.'),
  url: z.string().optional().describe('Address of a remote server (http: or https:).'),
  headers: stringRecord.optional().describe('HTTP headers sent to a remote server.'),
  auth: authSchema.optional(),
  enabled: z
    .boolean()
    .optional()
    .meta({ default: true, description: 'false keeps the entry but does not start it.' }),
  timeouts: z
    .strictObject({
      connect: seconds.optional().meta({ default: 60, description: 'Seconds for spawn and handshake.' }),
      request: seconds
        .optional()
        .meta({ default: 120, description: 'Seconds per request, clamped to 1–3600.' }),
      startup: seconds
        .optional()
        .meta({ default: 120, description: 'Seconds for a first start (e.g. a package download).' }),
    })
    .optional()
    .describe('Timeouts in seconds.'),
  protocol: z
    .string()
    .optional()
    .meta({
      default: 'auto',
      examples: ['auto', 'modern', 'legacy', '2025-06-18'],
      description: 'Protocol era: auto, modern, legacy or a revision.',
    }),
  trust: z
    .enum(['untrusted', 'trusted'])
    .optional()
    .meta({ default: 'untrusted', description: 'Whether the server is trusted.' }),
  tools: z
    .strictObject({
      include: z
        .array(z.string().min(1))
        .optional()
        .describe('Only tools matching one of these globs (default: all).'),
      exclude: z
        .array(z.string().min(1))
        .optional()
        .describe('Tools matching one of these globs are hidden.'),
    })
    .optional()
    .describe("Which of the server's tools are offered."),
  description: z.string().optional().describe('What the server is for, shown to people and agents.'),
  title: z.string().optional().describe('Display name.'),
  deferral: z.enum(['eager', 'deferred', 'hidden']).optional().meta({
    default: 'deferred',
    description: 'eager: tools listed up front; deferred: found on search; hidden: not offered.',
  }),
  roots: z
    .array(z.strictObject({ uri: z.string(), name: z.string().optional() }))
    .optional()
    .describe('Roots offered on roots/list (default: the working directory).'),
});

/** The raw shape of one server entry with its name, as sent to the API or given to normalize. */
export const rawServerEntrySchema = z.strictObject({
  name: z.string().regex(SERVER_NAME_PATTERN, 'use only letters, digits, "_", "." and "-"'),
  ...serverEntryFieldsSchema.shape,
});

export type RawServerEntry = z.input<typeof rawServerEntrySchema>;
/** A raw entry without its name: the value under `servers.<name>` in a config file. */
export type RawServerEntryFields = z.input<typeof serverEntryFieldsSchema>;

/** How each field is written, appended to type errors. */
export const FIELD_HINTS: FieldHints = {
  command: 'the program as a string, e.g. "npx"',
  args: 'a list of strings, e.g. ["-y", "@modelcontextprotocol/server-filesystem"]',
  env: 'an object of strings, e.g. { "API_KEY": "${API_KEY}" }',
  headers: 'an object of strings, e.g. { "Authorization": "Bearer ${TOKEN}" }',
  enabled: 'true or false',
  'timeouts.connect': 'a number of seconds above 0, e.g. 60',
  'timeouts.request': 'a number of seconds above 0, e.g. 120',
  'timeouts.startup': 'a number of seconds above 0, e.g. 120',
  'tools.include': 'a list of tool-name globs, e.g. ["read_*"]',
  'tools.exclude': 'a list of tool-name globs, e.g. ["delete_*"]',
  roots: 'a list like [{ "uri": "file:///home/me/project" }]',
  'auth.token': 'the token as a string, e.g. "${API_TOKEN}"',
};
