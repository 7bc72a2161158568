import { isModelVisible, toolUi } from '../core/mcp-apps.js';
import type { Deferral } from '../core/server-config.js';
import type { CatalogTool } from '../host/catalog/catalog.js';
import type { AgentTool } from './adapters/agent-tool.js';

export type { AgentTool } from './adapters/agent-tool.js';

/**
 * Which tools a model sees this round, from the catalog, each server's deferral, the grants of
 * the session (or sub-agent frame) and the meta-tools. Pure: recomputed every round, so a
 * grant made in round N shows in round N+1.
 */

/** The group that holds the server-management meta-tools. */
export const CONFIG_GROUP = 'config';

export interface ToolSetInput {
  readonly catalog: readonly CatalogTool[];
  readonly deferralOf: (server: string) => Deferral;
  /** Groups granted to the frame: server names, or `config`. */
  readonly granted: ReadonlySet<string>;
  /** Meta-tools always offered (activate_tools, search_tools…). */
  readonly metaTools: readonly AgentTool[];
  /** Meta-tools offered once `config` is granted. */
  readonly configTools: readonly AgentTool[];
  /** Tools policy denies outright are not offered (the model could only fail with them). */
  readonly denied?: (tool: CatalogTool) => boolean;
}

/** Whether a catalog tool is loaded for a frame with `granted`. */
export function isLoaded(
  tool: Pick<CatalogTool, 'server'>,
  deferral: Deferral,
  granted: ReadonlySet<string>,
): boolean {
  if (deferral === 'hidden') return false;
  return deferral === 'eager' || granted.has(tool.server);
}

/** The catalog tool as a model sees it. */
export function agentToolOf(tool: CatalogTool): AgentTool {
  const description = tool.tool.description ?? tool.tool.title ?? '';
  const schema = tool.tool.inputSchema as Record<string, unknown> | undefined;
  const meta = tool.tool._meta;
  return {
    name: tool.name,
    description,
    inputSchema: schema && typeof schema === 'object' ? schema : { type: 'object', properties: {} },
    ...(meta?.ui !== undefined && { visibility: toolUi(tool.tool).visibility }),
  };
}

/**
 * The tools of this round. An MCP App's own tools (visibility without `"model"`) are not
 * among them: they are there for the app's view to call back (SEP-1865 §Visibility).
 */
export function effectiveToolSet(input: ToolSetInput): AgentTool[] {
  const tools: AgentTool[] = [...input.metaTools];
  if (input.granted.has(CONFIG_GROUP)) tools.push(...input.configTools);
  for (const tool of input.catalog) {
    if (!isModelVisible(tool.tool)) continue;
    if (!isLoaded(tool, input.deferralOf(tool.server), input.granted)) continue;
    if (input.denied?.(tool)) continue;
    tools.push(agentToolOf(tool));
  }
  return tools;
}
