import { closeSync, openSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { recordSession } from '../client/recording/recorder.js';
import { createUpstreamTransport } from '../client/upstream-transport.js';
import { SwitchboardError } from '../core/errors.js';
import type { ServerConfig } from '../core/server-config.js';
import { secretsOf } from '../host/secrets.js';
import { parseVerbArgs } from './arguments/verb-options.js';
import { type CliContext, EXIT, type ExitCode, UsageError } from './cli-context.js';
import { findServer, openSetup } from './configured-servers.js';

/**
 * `switchboard record <server> [--out FILE]`: stands in for a configured server on stdio and
 * relays an MCP client's session to it, writing every message both ways to a cassette
 * (client/recording/) with secrets redacted. Put the command where the client (an agent under
 * test) would start the server; `switchboard replay FILE` then serves the recording.
 */
export const RECORD_USAGE = `usage: switchboard record <server> [--out FILE]
  Runs as <server> for an MCP client on stdin/stdout and relays the session to the real
  server, writing the traffic to FILE (default <server>.cassette.jsonl) with timings; the
  server's env values, headers and tokens, and fields named like secrets, are redacted.
  Example, in a client's config: "command": "npx", "args": ["switchboard", "record", "files"]
  Then: switchboard replay files.cassette.jsonl`;

export async function recordCommand(ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseVerbArgs(ctx.args, { out: { type: 'string', short: 'o' } });
  const name = positionals[0];
  if (name === undefined || positionals.length > 1)
    throw new UsageError('record takes exactly one server name.');
  const view = await openSetup(ctx);
  let config: ServerConfig;
  try {
    const found = findServer(view, name);
    if (!found.config)
      throw found.invalid ?? new SwitchboardError('CONFIG_INVALID', `Server "${name}" cannot start.`);
    config = found.config;
  } finally {
    await view.close();
  }
  const file = resolve(ctx.projectDir, values.out ?? `${name}.cassette.jsonl`);
  // Written with plain synchronous appends, in order, each line whole: what a killed recorder
  // leaves is readable up to its last line (cassette.ts).
  const fd = openSync(file, 'w', 0o600);
  const upstream = createUpstreamTransport(config, {
    env: ctx.env,
    sse: config.transport.kind === 'sse',
    onStderrLine: (line) => ctx.err(`[${name}] ${line}`),
  });
  const recording = await recordSession({
    client: new StdioServerTransport(),
    upstream,
    server: name,
    secretValues: secretsOf(config, ctx.env),
    write: (line) => {
      writeSync(fd, line);
    },
  });
  // stdout is the client's: everything for people goes to stderr.
  ctx.err(`switchboard record: relaying to "${name}", writing ${file}`);
  const stop = () => void recording.close();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await recording.done;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    closeSync(fd);
  }
  return EXIT.ok;
}
