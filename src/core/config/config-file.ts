import { type ParseError, parse, printParseErrorCode } from 'jsonc-parser';
import { z } from 'zod';
import { SwitchboardError } from '../errors.js';
import {
  configEntryError,
  normalizeServerEntry,
  SERVER_NAME_PATTERN,
  type ServerConfig,
  serverEntryFieldsSchema,
} from '../server-config.js';
import { closestName } from './did-you-mean.js';
import { type GatewaySection, gatewaySchema, mergeGateway, parseGateway } from './gateway-config.js';
import {
  type GovernanceConfig,
  governanceSchema,
  mergeGovernance,
  parseGovernance,
} from './governance-config.js';

/**
 * Switchboard's own config file (`switchboard.json` in a project, `~/.switchboard/config.json`
 * for the user): JSONC text → raw object → normalized servers. Pure: no file system here.
 *
 * ```jsonc
 * { "$schema": "…/switchboard.schema.json",
 *   "servers": { "fs": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem"] } } }
 * ```
 */

/** The raw file: server entries keyed by name, like other clients' `mcpServers`. */
export const configFileSchema = z
  .strictObject({
    $schema: z.string().optional().describe('The JSON Schema of this file, for editors.'),
    servers: z
      .record(z.string().regex(SERVER_NAME_PATTERN), serverEntryFieldsSchema)
      .optional()
      .describe('Upstream MCP servers, keyed by name (letters, digits, "_", "." and "-").'),
    governance: governanceSchema.optional(),
    gateway: gatewaySchema.optional(),
  })
  .describe('Switchboard configuration: switchboard.json (project) or ~/.switchboard/config.json (user).');

/** The normalized content of one config file, or of user and project merged. */
export interface ConfigFile {
  readonly servers: readonly ServerConfig[];
  /** The fields the file sets; defaults are applied where the settings are used. */
  readonly governance?: Partial<GovernanceConfig>;
  /** The gateway fields the file sets; `resolveGateway` applies the defaults. */
  readonly gateway?: GatewaySection;
}

const TOP_LEVEL_FIELDS = ['$schema', 'servers', 'governance', 'gateway'] as const;

/** Plain words for jsonc-parser's error codes (by their printed name). */
const PARSE_PROBLEMS: Readonly<Record<string, string>> = {
  InvalidSymbol: 'unexpected character',
  CommaExpected: 'a comma is missing',
  ColonExpected: 'a colon is missing',
  PropertyNameExpected: 'a property name in double quotes is expected',
  ValueExpected: 'a value is expected',
  CloseBraceExpected: 'a closing "}" is missing',
  CloseBracketExpected: 'a closing "]" is missing',
  EndOfFileExpected: 'there is more text after the end of the object',
  UnexpectedEndOfString: 'a string is not closed',
  UnexpectedEndOfComment: 'a /* comment is not closed',
  InvalidEscapeCharacter: 'invalid escape in a string',
};

/** 1-based line and column of `offset` in `text`. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split(/\r\n|\r|\n/);
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

/**
 * Parses the text of a config file (JSON with comments and trailing commas). An empty file
 * is an empty config. Throws CONFIG_INVALID naming `file:line:column` for a syntax error.
 */
export function parseConfigText(text: string, file: string): unknown {
  const body = text.replace(/^\uFEFF/, '');
  const errors: ParseError[] = [];
  const value: unknown = parse(body, errors, { allowTrailingComma: true, allowEmptyContent: true });
  const first = errors[0];
  if (first) {
    const { line, column } = lineAndColumn(body, first.offset);
    const problem = PARSE_PROBLEMS[printParseErrorCode(first.error)] ?? printParseErrorCode(first.error);
    throw new SwitchboardError(
      'CONFIG_INVALID',
      `${file}:${line}:${column}: ${problem}. Fix the JSON there (comments and trailing commas are allowed).`,
      { details: { file, line, column } },
    );
  }
  return value ?? {};
}

function fileError(file: string, field: string, problem: string): SwitchboardError {
  return new SwitchboardError('CONFIG_INVALID', `${file}: field "${field}": ${problem}`, {
    details: { file, field },
  });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Validates a parsed config file and normalizes its servers, in file order. Every rejection
 * names the file, the entry and the field, and says how to fix it.
 */
export function normalizeConfigFile(raw: unknown, file: string): ConfigFile {
  if (!isPlainObject(raw)) {
    throw fileError(file, '(file)', 'the file must hold an object like { "servers": { "name": { … } } }.');
  }
  for (const key of Object.keys(raw)) {
    if ((TOP_LEVEL_FIELDS as readonly string[]).includes(key)) continue;
    if (key === 'mcpServers') {
      throw fileError(
        file,
        key,
        'Switchboard lists servers under "servers". Rename "mcpServers" to "servers".',
      );
    }
    const guess = closestName(key, TOP_LEVEL_FIELDS);
    throw fileError(
      file,
      key,
      guess
        ? `unknown field. Did you mean "${guess}"? Rename it.`
        : 'unknown field. Remove it; a config file holds only "$schema", "servers", "governance" and "gateway".',
    );
  }
  if (raw.$schema !== undefined && typeof raw.$schema !== 'string') {
    throw fileError(file, '$schema', 'must be a string (the path or URL of the schema).');
  }
  const servers = raw.servers ?? {};
  if (!isPlainObject(servers)) {
    throw fileError(file, 'servers', 'must be an object keyed by server name: { "fs": { "command": "…" } }.');
  }
  return {
    servers: Object.entries(servers).map(([name, entry]) => normalizeNamedEntry(name, entry, file)),
    ...(raw.governance !== undefined && { governance: parseGovernance(raw.governance, file) }),
    ...(raw.gateway !== undefined && { gateway: parseGateway(raw.gateway, file) }),
  };
}

function normalizeNamedEntry(name: string, entry: unknown, file: string): ServerConfig {
  const source = { file };
  if (!SERVER_NAME_PATTERN.test(name)) {
    throw configEntryError(
      source,
      name,
      'name',
      'a server name (its key under "servers") may use only letters, digits, "_", "." and "-". Rename the key.',
    );
  }
  if (!isPlainObject(entry)) {
    throw configEntryError(
      source,
      name,
      '(entry)',
      'must be an object like { "command": "…" } or { "url": "…" }.',
    );
  }
  if ('name' in entry) {
    throw configEntryError(
      source,
      name,
      'name',
      'the name is the key under "servers" in this file. Remove the "name" field.',
    );
  }
  return normalizeServerEntry({ name, ...entry }, source);
}

/**
 * Merges the user's config with the project's: a project entry replaces the user entry of
 * the same name as a whole (merging fields of a stdio entry into an http one would make a
 * server nobody wrote). User entries keep their order; new project entries follow.
 */
export function mergeConfigs(user: ConfigFile, project: ConfigFile): ConfigFile {
  const byName = new Map(project.servers.map((s) => [s.name, s]));
  const merged = user.servers.map((s) => byName.get(s.name) ?? s);
  const userNames = new Set(user.servers.map((s) => s.name));
  const governance = mergeGovernance(user.governance ?? {}, project.governance ?? {});
  const gateway = mergeGateway(user.gateway ?? {}, project.gateway ?? {});
  return {
    servers: [...merged, ...project.servers.filter((s) => !userNames.has(s.name))],
    ...(Object.keys(governance).length > 0 && { governance }),
    ...(Object.keys(gateway).length > 0 && { gateway }),
  };
}
