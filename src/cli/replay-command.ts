import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { parseCassette } from '../client/recording/cassette.js';
import { ReplayMatcher } from '../client/recording/replay-matcher.js';
import { SwitchboardError } from '../core/errors.js';
import { listen } from '../gateway/http/node-adapter.js';
import { replayHttpHandler, replayOnTransport } from '../gateway/replay/replay-server.js';
import { parseVerbArgs } from './arguments/verb-options.js';
import { type CliContext, EXIT, type ExitCode, UsageError } from './cli-context.js';

/**
 * `switchboard replay <cassette>`: serves a recording (`switchboard record`) as an MCP server,
 * on stdio or, with `--http`, Streamable HTTP on 127.0.0.1 — for agent tests in CI without the
 * real server. Requests are matched to recorded ones by method and parameters
 * (client/recording/replay-matcher.ts); one that matches none gets an error saying what
 * differed, and a line on stderr.
 */
export const REPLAY_USAGE = `usage: switchboard replay <cassette> [--http [--port N]] [--exact] [--ignore PATH,…] [--timing]
  Serves a recording as an MCP server: on stdin/stdout, or with --http on
  http://127.0.0.1:PORT/mcp (prints the URL). Requests match recorded ones by method and
  parameters, ids and _meta aside; --exact counts _meta too, --ignore leaves out parameter
  paths (e.g. arguments.requestId). --timing answers at the recorded pace.
  Example: switchboard replay files.cassette.jsonl --http --port 0`;

export async function replayCommand(ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseVerbArgs(ctx.args, {
    http: { type: 'boolean', default: false },
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    exact: { type: 'boolean', default: false },
    ignore: { type: 'string' },
    timing: { type: 'boolean', default: false },
  });
  const path = positionals[0];
  if (path === undefined || positionals.length > 1)
    throw new UsageError('replay takes exactly one cassette file.');
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError(`--port takes 0–65535, not "${values.port}".`);
  const file = resolve(ctx.projectDir, path);
  const text = await readFile(file, 'utf8').catch((error: unknown) => {
    throw new SwitchboardError(
      'CONFIG_READ_FAILED',
      `Cannot read the cassette ${file}: ${String(error)}. Check the path.`,
      {
        cause: error,
        details: { file },
      },
    );
  });
  const cassette = parseCassette(text, file);
  const matcher = new ReplayMatcher(cassette.lines, {
    mode: values.exact ? 'exact' : 'loose',
    ...(values.ignore && {
      ignore: values.ignore
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean),
    }),
  });
  const options = {
    timing: values.timing,
    onMiss: (method: string, miss: { message: string }) =>
      ctx.err(`switchboard replay: ${method}: ${miss.message}`),
  };
  if (!values.http) {
    const { closed } = await replayOnTransport(new StdioServerTransport(), matcher, options);
    await closed;
    return EXIT.ok;
  }
  const listener = await listen(replayHttpHandler(matcher, options), { host: values.host, port });
  const url = `${listener.url}/mcp`;
  ctx.out(
    ctx.json
      ? JSON.stringify({ url, server: cassette.header.server })
      : `replaying ${cassette.header.server} (${file}) at ${url}`,
  );
  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  await listener.close();
  return EXIT.ok;
}
