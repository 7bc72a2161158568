import type { CallToolResult } from '@modelcontextprotocol/client';
import { MANAGEMENT_SERVER, runManagementTool } from '../../host/management/management-tools.js';
import type { MetaContext } from './context.js';

/**
 * The `config` group: an agent registers, removes, toggles and lists servers — the host's
 * management tools (host/management), under the same policy and approvals as upstream tools.
 */

export const BUILT_IN_SERVER = MANAGEMENT_SERVER;

export function runConfigTool(
  context: MetaContext,
  name: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  return runManagementTool(context.host, name, args, {
    session: context.session,
    source: 'agent',
    ...(context.signal && { signal: context.signal }),
  });
}
