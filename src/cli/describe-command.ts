import { parameterList, renderSignature } from './arguments/signature.js';
import { parseVerbArgs } from './arguments/verb-options.js';
import { type CliContext, EXIT, type ExitCode, UsageError } from './cli-context.js';
import { openForTool } from './connect-servers.js';
import { appJson, appLabel } from './output/app-label.js';
import { jsonDocument } from './output/json-document.js';
import { printable, styleFor } from './output/style.js';
import { renderTable } from './output/table.js';

/**
 * `switchboard describe <server.tool | mcp__server__tool>`: one tool in full — its signature,
 * description, parameters (type, required, default, description), annotations, and how to
 * call it. Connects only the tool's server.
 */
export const DESCRIBE_USAGE = `usage: switchboard describe <server.tool | mcp__server__tool | tool>
  Shows a tool's signature, description, parameters and annotations, its MCP App (the ui://
  view its results render with, and who may call it), and an example call.
  A bare tool name works when exactly one server has a tool of that name.`;

export async function describeCommand(ctx: CliContext): Promise<ExitCode> {
  const { positionals } = parseVerbArgs(ctx.args, {});
  const ref = positionals[0];
  if (ref === undefined || positionals.length > 1)
    throw new UsageError('describe takes exactly one tool name.');
  const { switchboard, item: tool } = await openForTool(ctx, ref);
  try {
    const signature = renderSignature(tool.tool);
    const parameters = parameterList((tool.tool.inputSchema ?? {}) as Record<string, unknown>);
    if (ctx.json) {
      ctx.out(
        JSON.stringify(
          // The tool as the server listed it (`_meta`, `icons` …) after the conveniences.
          jsonDocument(
            {
              server: tool.server,
              name: tool.tool.name,
              qualifiedName: tool.name,
              title: tool.tool.title ?? null,
              description: tool.tool.description ?? null,
              signature,
              parameters: parameters.map((p) => ({
                name: p.name,
                type: p.type,
                required: p.required,
                default: p.default ?? null,
                description: p.description ?? null,
              })),
              inputSchema: tool.tool.inputSchema,
              outputSchema: tool.tool.outputSchema ?? null,
              annotations: tool.tool.annotations ?? null,
              app: appJson(tool.tool),
            },
            tool.tool,
          ),
        ),
      );
      return EXIT.ok;
    }
    const style = styleFor(process.stdout, ctx.env);
    const dotted = `${tool.server}.${tool.tool.name}`;
    ctx.out(`${style.bold(printable(dotted, { singleLine: true }))}  ${style.dim(tool.name)}`);
    ctx.out(`  ${printable(signature, { singleLine: true })}`);
    const description = printable(tool.tool.description ?? '').trim();
    if (description !== '') {
      ctx.out('');
      for (const line of description.split('\n')) ctx.out(`  ${line}`);
    }
    if (parameters.length > 0) {
      ctx.out('');
      ctx.out(style.bold('Parameters'));
      const rows = parameters.map((p) => [
        p.name,
        p.type,
        p.required
          ? 'required'
          : p.default === undefined
            ? 'optional'
            : `default ${JSON.stringify(p.default)}`,
        printable(p.description ?? '', { singleLine: true }),
      ]);
      for (const line of renderTable(rows, { indent: 2 })) ctx.out(printable(line, { singleLine: true }));
    }
    const hints = Object.entries(tool.tool.annotations ?? {})
      .filter(([key, value]) => key.endsWith('Hint') && value !== undefined)
      .map(([key, value]) => `${key}: ${String(value)}`);
    if (hints.length > 0) {
      ctx.out('');
      ctx.out(`${style.bold('Annotations')}  ${hints.join(', ')}`);
    }
    const app = appLabel(tool.tool);
    if (app !== undefined) {
      ctx.out('');
      ctx.out(`${style.bold('App')}  ${printable(app, { singleLine: true })}`);
    }
    ctx.out('');
    const example = parameters
      .filter((p) => p.required)
      .map((p) => `${p.name}=…`)
      .join(' ');
    ctx.out(`${style.bold('Call')}  switchboard call ${dotted}${example ? ` ${example}` : ''}`);
    return EXIT.ok;
  } finally {
    await switchboard.close();
  }
}
