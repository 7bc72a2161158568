import type { Tool } from '@modelcontextprotocol/client';
import { toolUi } from '../../core/mcp-apps.js';

/**
 * What `tools` and `describe` say of a tool's MCP App (`_meta.ui`): the view its results
 * render with, and who may call it when that is not everyone. Undefined for a tool without
 * `_meta.ui`. Pure.
 */
export function appLabel(tool: Pick<Tool, '_meta'>): string | undefined {
  if (tool._meta?.ui === undefined && tool._meta?.['ui/resourceUri'] === undefined) return undefined;
  const { resourceUri, visibility } = toolUi(tool);
  const who = visibility.includes('model')
    ? visibility.includes('app')
      ? undefined
      : 'model only'
    : visibility.includes('app')
      ? 'app only'
      : 'nobody';
  const parts = [resourceUri !== undefined ? `app ${resourceUri}` : 'app', ...(who ? [who] : [])];
  return parts.join(', ');
}

/** The `app` field of a tool in `--json` output: its view and who may call it, or null. */
export function appJson(
  tool: Pick<Tool, '_meta'>,
): { resourceUri: string | null; visibility: string[] } | null {
  if (tool._meta?.ui === undefined && tool._meta?.['ui/resourceUri'] === undefined) return null;
  const { resourceUri, visibility } = toolUi(tool);
  return { resourceUri: resourceUri ?? null, visibility: [...visibility] };
}
