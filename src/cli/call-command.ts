import type { Progress } from '@modelcontextprotocol/client';
import type { ToolResult } from '../client/results.js';
import { isSwitchboardError, SwitchboardError } from '../core/errors.js';
import { attachTerminalPrompt } from '../host/inbox/terminal-prompt.js';
import { missingRequired, parseAssignments } from './arguments/assignments.js';
import { parameterList, renderSignature } from './arguments/signature.js';
import { parseVerbArgs } from './arguments/verb-options.js';
import { type CliContext, EXIT, type ExitCode, UsageError } from './cli-context.js';
import { openForTool } from './connect-servers.js';
import { answerOneShot } from './one-shot-answers.js';
import { jsonDocument } from './output/json-document.js';
import { describeMedia, type SavedMedia, saveMedia } from './output/media-files.js';
import { printable, styleFor } from './output/style.js';
import { viaGateway } from './running-gateway.js';

/**
 * `switchboard call <server.tool> [key=value …]`: calls one tool through the host, so policy,
 * approvals and audit apply as for an agent. Arguments are typed by the tool's input schema
 * (arguments/assignments.ts) or given as JSON; the result is printed as text, structured
 * content as indented JSON, media saved to files. Progress goes to stderr. Approvals and the
 * server's questions (elicitation) are asked at the terminal when stdin is one (or with
 * --interactive); `--yes` approves this invocation's calls (one-shot-answers.ts); otherwise
 * an approval is declined with a message that names --yes, and the exit code is 4.
 */
export const CALL_USAGE = `usage: switchboard call <server.tool | mcp__server__tool> [key=value …] [--args JSON | --args -]
                        [--timeout SECONDS] [--interactive] [--yes]
  Calls a tool. key=value pairs are typed by the tool's schema (numbers, booleans, JSON for
  objects and arrays; key:=<json> sends raw JSON; a.b=x sets a nested field); --args takes
  a JSON object, "-" reads it from stdin; key=value pairs override it.
  Exit 0 ok, 1 the tool returned an error, 2 usage, 3 connection, 4 denied by policy.
  When policy asks a person first, the call is put to you on the terminal; --yes approves the
  calls of this command instead (for scripts, or without a terminal). Questions from the server
  are asked on the terminal too (--interactive reads the answers from stdin); without one they
  are declined.`;

export async function callCommand(ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseVerbArgs(ctx.args, {
    args: { type: 'string' },
    timeout: { type: 'string' },
    interactive: { type: 'boolean', default: false },
    yes: { type: 'boolean', default: false },
  });
  const [ref, ...words] = positionals;
  if (ref === undefined)
    throw new UsageError('call needs a tool: switchboard call <server.tool> [key=value …].');
  if (values.args === '-' && values.interactive)
    throw new UsageError('--args - and --interactive both read stdin; pass the arguments inline instead.');
  const timeoutMs = values.timeout === undefined ? undefined : seconds(values.timeout);
  const base = values.args === undefined ? {} : await jsonArgs(ctx, values.args);
  const stdinIsTty = (ctx.stdin as { isTTY?: boolean }).isTTY === true;
  const interactive = values.interactive || (stdinIsTty && values.args !== '-');
  // A running gateway has the server connected already. Not when questions are to be asked
  // here, nor with --yes: the gateway puts its approvals to its own front-ends (dashboard,
  // `switchboard inbox`), where this command's --yes does not reach.
  if (!interactive && !values.yes) {
    const request = { ref, base, words, ...(timeoutMs !== undefined && { timeoutMs }) };
    const code = await viaGateway(ctx, async (gateway) =>
      (await import('./gateway-call.js')).callViaGateway(ctx, gateway, request),
    );
    if (code !== undefined) return code;
  }
  const { switchboard, server, item: tool } = await openForTool(ctx, ref);
  const { host } = switchboard;
  // Attached first: what it answers never reaches the terminal prompt.
  const answered =
    values.yes || !interactive
      ? answerOneShot(host.inbox, { approve: values.yes, noTerminal: !interactive })
      : undefined;
  const detach = interactive
    ? attachTerminalPrompt(host.inbox, { input: ctx.stdin, output: process.stderr })
    : undefined;
  const abort = new AbortController();
  const onSignal = () => abort.abort();
  process.once('SIGINT', onSignal);
  const progress = progressLine(ctx);
  try {
    const args = { ...base, ...parseAssignments(words, tool.tool.inputSchema) };
    const missing = missingRequired(args, tool.tool.inputSchema);
    if (missing.length > 0) {
      const types = new Map(
        parameterList(tool.tool.inputSchema as Record<string, unknown>).map((p) => [p.name, p.type]),
      );
      throw new UsageError(
        `${server}.${tool.tool.name} needs ${missing.map((m) => `${m} (${types.get(m) ?? 'any'})`).join(', ')}: ` +
          `${renderSignature(tool.tool)}.`,
      );
    }
    const result = await host
      .callTool(tool.name, args, {
        signal: abort.signal,
        onProgress: progress.show,
        ...(timeoutMs !== undefined && { timeoutMs }),
      })
      .catch((error: unknown) => {
        // Nobody could be asked: no terminal, no --yes. Say so in the command's own terms.
        if (!interactive && !values.yes && isSwitchboardError(error, 'APPROVAL_DECLINED'))
          throw needsYes(`${server}.${tool.tool.name}`, error);
        throw error;
      });
    progress.end();
    const media = await saveMedia(ctx.dataDir, result.media);
    if (ctx.json) ctx.out(JSON.stringify(jsonOf(server, tool.tool.name, tool.name, result, media)));
    else printResult(ctx, result, media);
    if (result.isError) {
      if (!ctx.json && !ctx.quiet) ctx.err(`switchboard: ${server}.${tool.tool.name} returned an error.`);
      return EXIT.toolError;
    }
    return EXIT.ok;
  } finally {
    progress.end();
    process.off('SIGINT', onSignal);
    detach?.();
    answered?.();
    await switchboard.close();
  }
}

/** The refusal of a call that needed a person when none could be asked, with what to do. */
function needsYes(name: string, declined: SwitchboardError): SwitchboardError {
  const asked = declined.details?.asked;
  return new SwitchboardError(
    'APPROVAL_DECLINED',
    `${name} needs a person's approval${typeof asked === 'string' ? ` (${asked})` : ''}, and this command has ` +
      'no terminal to ask at. Add --yes to approve the calls of this command, run it at a terminal to ' +
      'be asked, or add an allow rule for it to the governance section of switchboard.json.',
    { cause: declined, details: { ...declined.details } },
  );
}

function seconds(text: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0)
    throw new UsageError(`--timeout takes a number of seconds greater than 0, not "${text}".`);
  return Math.round(value * 1000);
}

async function jsonArgs(ctx: CliContext, text: string): Promise<Record<string, unknown>> {
  const source = text === '-' ? await readAll(ctx.stdin) : text;
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    throw new UsageError(
      `--args${text === '-' ? ' - (stdin)' : ''} is not JSON: ${(error as Error).message}.`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError('--args must be a JSON object of the tool\'s arguments, e.g. {"text":"hi"}.');
  return value as Record<string, unknown>;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Progress notifications on stderr: redrawn in place on a terminal, one line each otherwise
 * (a log keeps every step). Nothing with --quiet.
 */
function progressLine(ctx: CliContext): { show(p: Progress): void; end(): void } {
  const tty = process.stderr.isTTY === true;
  let drawn = false;
  return {
    show(p) {
      if (ctx.quiet) return;
      const amount = p.total === undefined ? `${p.progress}` : `${p.progress}/${p.total}`;
      const text = `progress ${amount}${p.message ? `: ${printable(p.message, { singleLine: true })}` : ''}`;
      if (!tty) ctx.err(text);
      else {
        process.stderr.write(`\r\u001b[K${text}`);
        drawn = true;
      }
    },
    end() {
      if (drawn) process.stderr.write('\r\u001b[K');
      drawn = false;
    },
  };
}

function jsonOf(
  server: string,
  tool: string,
  qualifiedName: string,
  result: ToolResult,
  media: readonly SavedMedia[],
) {
  // The result as the server returned it (`content`, `_meta`, fields of a newer revision)
  // after the conveniences; `structuredContent` is null when it sent none.
  return jsonDocument(
    {
      server,
      tool,
      qualifiedName,
      isError: result.isError,
      text: result.text,
      structuredContent: result.kind === 'json' ? result.json : null,
      ...(result.kind === 'json' &&
        result.schema.status === 'invalid' && { schemaErrors: result.schema.errors }),
      media: media.map((m) => ({
        type: m.type,
        mimeType: m.mimeType,
        bytes: m.bytes,
        path: m.path,
        uri: m.uri ?? null,
      })),
      links: result.links.map((l) => ({ uri: l.uri, name: l.name, mimeType: l.mimeType ?? null })),
    },
    result.raw,
  );
}

function printResult(ctx: CliContext, result: ToolResult, media: readonly SavedMedia[]): void {
  // Server text is shown as is when piped (it may be data), made safe on a terminal.
  const safe = process.stdout.isTTY ? (text: string) => printable(text) : (text: string) => text;
  const style = styleFor(process.stdout, ctx.env);
  if (result.kind === 'json') {
    ctx.out(safe(JSON.stringify(result.json, null, 2)));
    if (result.schema.status === 'invalid' && !ctx.quiet)
      ctx.err(
        `switchboard: the structured result does not match the tool's output schema: ${result.schema.errors}`,
      );
  } else if (result.text !== '') ctx.out(safe(result.text));
  for (const m of media) ctx.out(describeMedia(m));
  for (const link of result.links)
    ctx.out(
      `${style.dim('link')} ${safe(link.name)} ${style.cyan(safe(link.uri))}${link.mimeType ? ` (${link.mimeType})` : ''}`,
    );
}
