import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { describeError } from '../../core/errors.js';
import type { CatalogTool } from '../../host/catalog/catalog.js';
import type { Admission } from '../../host/governance/governor.js';
import type { MetaContext } from './context.js';
import { errorOutcome, jsonOutcome, stringArg } from './outcome.js';

/**
 * The `config` group: an agent registers, removes, toggles and lists servers. Registering a
 * server can start any command, so these calls go through the same policy and approvals as an
 * upstream tool, as tools of the built-in server "switchboard": register and delete are
 * dangerous, toggle is not read-only, list is. URLs are checked by the network policy.
 */

export const BUILT_IN_SERVER = 'switchboard';

function subject(name: string, annotations: Tool['annotations']): CatalogTool {
  const tool: Tool = { name, inputSchema: { type: 'object' }, ...(annotations && { annotations }) };
  return { name, server: BUILT_IN_SERVER, tool, hash: '' };
}

const SUBJECTS = {
  register_mcp: subject('register_mcp', { destructiveHint: true }),
  delete_mcp: subject('delete_mcp', { destructiveHint: true }),
  toggle_mcp: subject('toggle_mcp', undefined),
};

export async function runConfigTool(
  context: MetaContext,
  name: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  const { host } = context;
  if (name === 'list_mcp') {
    return jsonOutcome({
      servers: host.servers().map((s) => ({
        name: s.name,
        state: s.state,
        transport: s.transport,
        tools: s.tools,
        ...(s.error && { error: s.error.message }),
      })),
    });
  }
  const target = stringArg(args, 'name');
  if (!target) return errorOutcome('"name" is required: the server\'s name.');
  const approval = SUBJECTS[name as keyof typeof SUBJECTS];
  if (!approval) return errorOutcome(`Unknown config tool "${name}".`);
  if (name === 'toggle_mcp' && typeof args.enabled !== 'boolean') {
    return errorOutcome('"enabled" must be true or false.');
  }
  let admission: Admission;
  try {
    admission = await host.governor.admit(approval, args, {
      session: context.session,
      ...(context.signal && { signal: context.signal }),
    });
  } catch (error) {
    return errorOutcome(`${name} was not run: ${describeError(error)}`);
  }
  const started = performance.now();
  try {
    const outcome = await apply(context, name, target, args);
    await host.governor.record(admission, { durationMs: performance.now() - started });
    return outcome;
  } catch (error) {
    await host.governor.record(admission, { durationMs: performance.now() - started, error });
    return errorOutcome(`${name} failed: ${describeError(error)}`);
  }
}

async function apply(
  { host }: MetaContext,
  name: string,
  target: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  if (name === 'register_mcp') {
    const { name: _n, ...entry } = args;
    const config = await host.register({ name: target, ...entry }, 'agent');
    return jsonOutcome({ registered: config.name, transport: config.transport.kind });
  }
  if (name === 'delete_mcp') {
    await host.unregister(target);
    return jsonOutcome({ deleted: target });
  }
  await host.setEnabled(target, args.enabled === true);
  return jsonOutcome({ server: target, enabled: args.enabled === true });
}
