import { parseArgs } from 'node:util';
import { createSwitchboard } from '../app/switchboard.js';
import { IdempotencyCache } from '../gateway/mcp/idempotency.js';
import { serveGatewayStdio } from '../gateway/stdio/serve-stdio.js';
import { type CliContext, EXIT, type ExitCode, UsageError } from './cli-context.js';

/**
 * `switchboard serve [--stdio]`: the gateway. With `--stdio` it speaks MCP on stdin/stdout for
 * a client that spawns it (and writes nothing else there: messages go to stderr); it exits
 * when the client closes the connection, closing every upstream server.
 */
export const SERVE_USAGE = `usage: switchboard serve --stdio
  Serves every configured server as one MCP server on stdin/stdout (for clients that spawn
  their servers). Policy and consent apply; a call that policy asks about is put to the client.`;

export async function serveCommand(ctx: CliContext): Promise<ExitCode> {
  const { values } = parseArgs({
    args: [...ctx.args],
    options: { stdio: { type: 'boolean', default: false } },
    strict: true,
  });
  if (!values.stdio)
    throw new UsageError('serve needs --stdio for now (the HTTP listener comes with its security chain).');
  const switchboard = await createSwitchboard({
    projectDir: ctx.projectDir,
    homeDir: ctx.homeDir,
    dataDir: ctx.dataDir,
  });
  const gateway = serveGatewayStdio(switchboard.host, {
    input: ctx.stdin,
    naming: 'namespaced',
    expose: { tools: ['*'], resources: ['*'], prompts: ['*'] },
    consent: 'on',
    limits: { argumentBytes: 256 * 1024, depth: 32, stringLength: 100_000 },
    idempotency: new IdempotencyCache(10 * 60_000),
    onerror: (error) => {
      if (ctx.verbose) ctx.err(`switchboard serve: ${error.message}`);
    },
  });
  const stop = async () => {
    await gateway.close();
    await switchboard.close();
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
  await gateway.closed;
  await switchboard.close();
  return EXIT.ok;
}
