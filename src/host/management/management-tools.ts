import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { unusedEntryField } from '../../core/config/unused-entry-fields.js';
import { describeError } from '../../core/errors.js';
import type { RawServerEntryFields } from '../../core/server-config.js';
import type { CatalogTool } from '../catalog/catalog.js';
import type { Admission, AskApproval } from '../governance/governor.js';
import type { Host } from '../host.js';

/**
 * Server management as tools of the built-in server "switchboard": register, delete, toggle
 * and list servers. An agent gets them as its `config` group; the gateway serves them, when
 * its operator turns them on, to the clients a principal's allow-list lets through.
 * Registering a server can start any command, so every call goes through the same policy and
 * approvals as an upstream tool: register and delete are destructive, toggle is not read-only,
 * list is read-only. URLs are checked by the network policy (`host.register`).
 */

export const MANAGEMENT_SERVER = 'switchboard';

export const MANAGEMENT_TOOLS: readonly Tool[] = [
  {
    name: 'register_mcp',
    description:
      'Add or replace an MCP server: a local command (command, args, env) or a remote one (url, headers). Needs approval.',
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'Letters, digits, "_", "." and "-".' },
        command: { type: 'string' },
        args: { type: 'array', items: { type: 'string' } },
        env: { type: 'object', additionalProperties: { type: 'string' } },
        url: { type: 'string' },
        headers: { type: 'object', additionalProperties: { type: 'string' } },
        description: { type: 'string', description: 'What the server is for, shown in the server list.' },
        title: { type: 'string' },
      },
      required: ['name'],
    },
    annotations: { destructiveHint: true, readOnlyHint: false },
  },
  {
    name: 'delete_mcp',
    description: 'Remove a registered MCP server. Needs approval.',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    annotations: { destructiveHint: true, readOnlyHint: false },
  },
  {
    name: 'toggle_mcp',
    description: 'Enable or disable an MCP server.',
    inputSchema: {
      type: 'object',
      properties: { name: { type: 'string' }, enabled: { type: 'boolean' } },
      required: ['name', 'enabled'],
    },
    annotations: { destructiveHint: false, readOnlyHint: false },
  },
  {
    name: 'list_mcp',
    description: 'List MCP servers with their state, tool counts and errors.',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
  },
];

/** A management tool as policy sees it (a catalog tool of the server "switchboard"). */
export function managementSubject(name: string): CatalogTool | undefined {
  const tool = MANAGEMENT_TOOLS.find((t) => t.name === name);
  return tool && { name: `mcp__${MANAGEMENT_SERVER}__${name}`, server: MANAGEMENT_SERVER, tool, hash: '' };
}

export interface ManagementCallOptions {
  /** Whose call it is (policy, allow-lists and audit are per session). */
  readonly session: string;
  readonly signal?: AbortSignal;
  /** Who answers when policy asks (the gateway's consent answer); default the host's. */
  readonly askApproval?: AskApproval;
  /** Recorded as the registration's source: `agent`, `gateway`. */
  readonly source: string;
  /** Which servers `list_mcp` shows (the caller's view); default every server. */
  readonly visible?: (server: string) => boolean;
}

/** Runs a management tool; failures come back as tool errors a model can read. */
export async function runManagementTool(
  host: Host,
  name: string,
  args: Record<string, unknown>,
  options: ManagementCallOptions,
): Promise<CallToolResult> {
  const subject = managementSubject(name);
  if (!subject) return failure(`Unknown management tool "${name}".`);
  const target = typeof args.name === 'string' && args.name.length > 0 ? args.name : undefined;
  if (name !== 'list_mcp' && !target) return failure('"name" is required: the server\'s name.');
  if (name === 'toggle_mcp' && typeof args.enabled !== 'boolean') {
    return failure('"enabled" must be true or false.');
  }
  if (name === 'register_mcp') {
    // A field the server's transport would not use is refused (before anyone is asked), not
    // stored to do nothing.
    const { name: _n, ...entry } = args;
    const unused = unusedEntryField(entry as RawServerEntryFields);
    if (unused) return failure(`register_mcp was not run: field "${unused.field}": ${unused.problem}`);
  }
  let admission: Admission;
  try {
    admission = await host.governor.admit(subject, args, {
      session: options.session,
      ...(options.signal && { signal: options.signal }),
      ...(options.askApproval && { askApproval: options.askApproval }),
    });
  } catch (error) {
    return failure(`${name} was not run: ${describeError(error)}`);
  }
  const started = performance.now();
  try {
    const outcome = await apply(host, name, target ?? '', args, options);
    await host.governor.record(admission, { durationMs: performance.now() - started });
    return outcome;
  } catch (error) {
    await host.governor.record(admission, { durationMs: performance.now() - started, error });
    return failure(`${name} failed: ${describeError(error)}`);
  }
}

async function apply(
  host: Host,
  name: string,
  target: string,
  args: Record<string, unknown>,
  options: ManagementCallOptions,
): Promise<CallToolResult> {
  // The change is audited by the host too, with the calling session as its actor.
  const actor = { session: options.session, via: options.source };
  const { visible = () => true } = options;
  if (name === 'list_mcp') {
    return json({
      servers: host
        .servers()
        .filter((s) => visible(s.name))
        .map((s) => ({
          name: s.name,
          state: s.state,
          transport: s.transport,
          tools: s.tools,
          ...(s.error && { error: s.error.message }),
        })),
    });
  }
  if (name === 'register_mcp') {
    const { name: _n, ...entry } = args;
    const config = await host.register({ name: target, ...entry }, options.source, actor);
    return json({ registered: config.name, transport: config.transport.kind });
  }
  if (name === 'delete_mcp') {
    await host.unregister(target, actor);
    return json({ deleted: target });
  }
  await host.setEnabled(target, args.enabled === true, actor);
  return json({ server: target, enabled: args.enabled === true });
}

function json(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

function failure(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
