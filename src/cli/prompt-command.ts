import type { GetPromptResult } from '@modelcontextprotocol/client';
import type { MediaPart } from '../client/results.js';
import { missingRequired, parseAssignments } from './arguments/assignments.js';
import { promptSignature } from './arguments/signature.js';
import { parseVerbArgs } from './arguments/verb-options.js';
import { type CliContext, EXIT, type ExitCode, UsageError } from './cli-context.js';
import { openForPrompt } from './connect-servers.js';
import { jsonDocument } from './output/json-document.js';
import { describeMedia, saveMedia } from './output/media-files.js';
import { printable, styleFor } from './output/style.js';

/**
 * `switchboard prompt <server.prompt> [key=value …]`: renders a prompt with its arguments and
 * prints the messages it yields, each under its role. Images and other binary content are
 * saved to files. Connects only the prompt's server.
 */
export const PROMPT_USAGE = `usage: switchboard prompt <server.prompt | prompt> [key=value …]
  Gets a prompt's messages and prints them with their roles. Prompt arguments are text;
  "switchboard prompts" lists the prompts and their arguments.`;

type Message = GetPromptResult['messages'][number];

export async function promptCommand(ctx: CliContext): Promise<ExitCode> {
  const { positionals } = parseVerbArgs(ctx.args, {});
  const [ref, ...words] = positionals;
  if (ref === undefined)
    throw new UsageError('prompt needs a prompt name: switchboard prompt <server.prompt>.');
  const { switchboard, server, item: prompt } = await openForPrompt(ctx, ref);
  try {
    // Prompt arguments are strings (MCP "Prompts"): read the words against that schema.
    const schema = {
      type: 'object',
      properties: Object.fromEntries((prompt.arguments ?? []).map((a) => [a.name, { type: 'string' }])),
      required: (prompt.arguments ?? []).filter((a) => a.required).map((a) => a.name),
    };
    const parsed = parseAssignments(words, schema);
    const missing = missingRequired(parsed, schema);
    if (missing.length > 0)
      throw new UsageError(
        `${server}.${prompt.name} needs ${missing.join(', ')}: ${promptSignature(prompt)}.`,
      );
    const args = Object.fromEntries(
      Object.entries(parsed).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
    );
    const result = await switchboard.host.getPrompt(server, prompt.name, args);
    if (ctx.json) {
      ctx.out(
        // The result as returned (`_meta` …) after the conveniences.
        JSON.stringify(
          jsonDocument(
            { server, name: prompt.name, description: result.description ?? null, messages: result.messages },
            result,
          ),
        ),
      );
      return EXIT.ok;
    }
    const style = styleFor(process.stdout, ctx.env);
    const safe = process.stdout.isTTY ? (text: string) => printable(text) : (text: string) => text;
    if (result.description && !ctx.quiet) ctx.err(printable(result.description, { singleLine: true }));
    for (const [index, message] of result.messages.entries()) {
      if (index > 0) ctx.out('');
      ctx.out(style.bold(`${message.role}:`));
      for (const line of await messageLines(ctx, message)) ctx.out(safe(line));
    }
    return EXIT.ok;
  } finally {
    await switchboard.close();
  }
}

/** A message's content as lines: text as it is, media saved to a file, links as `uri`. */
async function messageLines(ctx: CliContext, message: Message): Promise<string[]> {
  const content = message.content;
  const save = async (part: Pick<MediaPart, 'type' | 'mimeType' | 'data' | 'uri'>) => {
    const [file] = await saveMedia(ctx.dataDir, [part]);
    return [describeMedia(file!)];
  };
  switch (content.type) {
    case 'text':
      return content.text.split('\n');
    case 'image':
    case 'audio':
      return save({
        type: content.type,
        mimeType: content.mimeType,
        data: Buffer.from(content.data, 'base64'),
      });
    case 'resource': {
      const r = content.resource;
      if ('text' in r && typeof r.text === 'string') return r.text.split('\n');
      const blob = 'blob' in r && typeof r.blob === 'string' ? r.blob : '';
      return save({
        type: 'blob',
        mimeType: r.mimeType ?? 'application/octet-stream',
        data: Buffer.from(blob, 'base64'),
        uri: r.uri,
      });
    }
    case 'resource_link':
      return [`link ${content.name} ${content.uri}`];
    default:
      // A content type from a newer revision: shown as JSON rather than dropped.
      return [JSON.stringify(content)];
  }
}
