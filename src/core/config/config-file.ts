import { z } from 'zod';
import { isSwitchboardError, SwitchboardError } from '../errors.js';
import {
  configEntryError,
  normalizeServerEntry,
  SERVER_NAME_PATTERN,
  type ServerConfig,
  serverEntryFieldsSchema,
} from '../server-config.js';
import { parseConfigText } from './config-text.js';
import { closestName } from './did-you-mean.js';
import { type GatewaySection, gatewaySchema, mergeGateway, parseGateway } from './gateway-config.js';
import {
  type GovernanceConfig,
  governanceSchema,
  mergeGovernance,
  parseGovernance,
} from './governance-config.js';
import { shownField } from './issue-text.js';
import { mergeSearch, parseSearch, type SearchSection, searchSchema } from './search-config.js';
import { SERVER_NAME_RULE, serverNameProblem } from './server-name.js';
import {
  mergeTelemetry,
  parseTelemetry,
  type TelemetrySection,
  telemetrySchema,
} from './telemetry-config.js';

export { lineAndColumn, parseConfigText } from './config-text.js';

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
    enabled: z
      .boolean()
      .optional()
      .describe(
        'The master switch: false connects none of the servers below (they are kept as written, shown disabled). Default true.',
      ),
    servers: z
      .record(z.string().regex(SERVER_NAME_PATTERN), serverEntryFieldsSchema)
      .optional()
      .describe(`Upstream MCP servers, keyed by name (${SERVER_NAME_RULE}).`),
    governance: governanceSchema.optional(),
    gateway: gatewaySchema.optional(),
    telemetry: telemetrySchema.optional(),
    search: searchSchema.optional(),
  })
  .describe('Switchboard configuration: switchboard.json (project) or ~/.switchboard/config.json (user).');

/**
 * An entry of a config file that could not be normalized: its name (the key under `servers`,
 * whatever it is) and why, as CONFIG_INVALID naming the file, the entry and the field.
 */
export interface InvalidEntry {
  readonly name: string;
  readonly file: string;
  readonly error: SwitchboardError;
  /** The entry as written (the value under its key). */
  readonly entry: unknown;
}

/** The normalized content of one config file, or of user and project merged. */
export interface ConfigFile {
  /** The master switch as the file sets it: false, no server connects (`HostOptions.enabled`). */
  readonly enabled?: boolean;
  readonly servers: readonly ServerConfig[];
  /**
   * Entries that could not be normalized, when they were collected (`invalidEntries:
   * 'collect'`) rather than thrown: a daemon shows them as failed servers and runs the rest.
   */
  readonly invalid?: readonly InvalidEntry[];
  /** The fields the file sets; defaults are applied where the settings are used. */
  readonly governance?: Partial<GovernanceConfig>;
  /** The gateway fields the file sets; `resolveGateway` applies the defaults. */
  readonly gateway?: GatewaySection;
  /** The telemetry fields the file sets (telemetry-config.ts); the app gives them their meaning. */
  readonly telemetry?: TelemetrySection;
  /** The search fields the file sets (search-config.ts): an embedding provider, if any. */
  readonly search?: SearchSection;
}

/** What to do with a server entry that does not normalize. */
export interface NormalizeConfigOptions {
  /**
   * `throw` (default): the first such entry is the file's error. `collect`: it is returned in
   * `invalid` and the other entries load. Errors of the file itself (its syntax, an unknown
   * top-level field, the `governance` and `gateway` sections) always throw: running with a
   * security section left at its defaults because it was mistyped is not an option.
   */
  readonly invalidEntries?: 'throw' | 'collect';
}

const TOP_LEVEL_FIELDS = [
  '$schema',
  'enabled',
  'servers',
  'governance',
  'gateway',
  'telemetry',
  'search',
] as const;

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
export function normalizeConfigFile(
  raw: unknown,
  file: string,
  options: NormalizeConfigOptions = {},
): ConfigFile {
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
      shownField([key]),
      guess
        ? `unknown field. Did you mean "${guess}"? Rename it.`
        : 'unknown field. Remove it; a config file holds only "$schema", "enabled", "servers", "governance", "gateway", "telemetry" and "search".',
    );
  }
  if (raw.$schema !== undefined && typeof raw.$schema !== 'string') {
    throw fileError(file, '$schema', 'must be a string (the path or URL of the schema).');
  }
  if (raw.enabled !== undefined && typeof raw.enabled !== 'boolean') {
    throw fileError(
      file,
      'enabled',
      'must be true or false: false turns MCP off for this host (no server connects; the entries are kept).',
    );
  }
  const servers = raw.servers ?? {};
  if (!isPlainObject(servers)) {
    throw fileError(file, 'servers', 'must be an object keyed by server name: { "fs": { "command": "…" } }.');
  }
  const governance = raw.governance !== undefined ? parseGovernance(raw.governance, file) : undefined;
  const gateway = raw.gateway !== undefined ? parseGateway(raw.gateway, file) : undefined;
  const telemetry = raw.telemetry !== undefined ? parseTelemetry(raw.telemetry, file) : undefined;
  const search = raw.search !== undefined ? parseSearch(raw.search, file) : undefined;
  const normalized: ServerConfig[] = [];
  const invalid: InvalidEntry[] = [];
  for (const [name, entry] of Object.entries(servers)) {
    try {
      normalized.push(normalizeNamedEntry(name, entry, file));
    } catch (error) {
      if (options.invalidEntries !== 'collect' || !isSwitchboardError(error, 'CONFIG_INVALID')) throw error;
      invalid.push({ name, file, error, entry });
    }
  }
  return {
    ...(typeof raw.enabled === 'boolean' && { enabled: raw.enabled }),
    servers: normalized,
    ...(options.invalidEntries === 'collect' && { invalid }),
    ...(governance !== undefined && { governance }),
    ...(gateway !== undefined && { gateway }),
    ...(telemetry !== undefined && { telemetry }),
    ...(search !== undefined && { search }),
  };
}

/** Parses and normalizes the text of one of our config files (`parseConfigText` + `normalizeConfigFile`). */
export function readConfigText(text: string, file: string, options: NormalizeConfigOptions = {}): ConfigFile {
  return normalizeConfigFile(parseConfigText(text, file), file, options);
}

function normalizeNamedEntry(name: string, entry: unknown, file: string): ServerConfig {
  const source = { file };
  const nameProblem = serverNameProblem(name);
  if (nameProblem) {
    throw configEntryError(
      source,
      name,
      'name',
      `${nameProblem}; ${SERVER_NAME_RULE}. Rename the key under "servers".`,
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
 * server nobody wrote), and so does a project entry that is invalid — the project meant to
 * replace it, so the user's is not run in its place. User entries keep their order; new
 * project entries follow.
 */
export function mergeConfigs(user: ConfigFile, project: ConfigFile): ConfigFile {
  const byName = new Map(project.servers.map((s) => [s.name, s]));
  const projectInvalid = new Set((project.invalid ?? []).map((e) => e.name));
  const projectNames = new Set([...byName.keys(), ...projectInvalid]);
  const merged = user.servers.filter((s) => !projectInvalid.has(s.name)).map((s) => byName.get(s.name) ?? s);
  const userNames = new Set(user.servers.map((s) => s.name));
  const invalid = [
    ...(user.invalid ?? []).filter((e) => !projectNames.has(e.name)),
    ...(project.invalid ?? []),
  ];
  const governance = mergeGovernance(user.governance ?? {}, project.governance ?? {});
  const gateway = mergeGateway(user.gateway ?? {}, project.gateway ?? {});
  const telemetry = mergeTelemetry(user.telemetry ?? {}, project.telemetry ?? {});
  const search = mergeSearch(user.search ?? {}, project.search ?? {});
  // The master switch: the project's if it sets one, else the user's.
  const enabled = project.enabled ?? user.enabled;
  return {
    ...(enabled !== undefined && { enabled }),
    servers: [...merged, ...project.servers.filter((s) => !userNames.has(s.name))],
    ...((user.invalid !== undefined || project.invalid !== undefined) && { invalid }),
    ...(Object.keys(governance).length > 0 && { governance }),
    ...(Object.keys(gateway).length > 0 && { gateway }),
    ...(Object.keys(telemetry).length > 0 && { telemetry }),
    ...(Object.keys(search).length > 0 && { search }),
  };
}
