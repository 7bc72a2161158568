/**
 * The upstream every target of the gateway benchmark serves: one tool, `echo`, answering its
 * `text` argument as text content, or, given `size` (and `kind: "image"`), a text or image
 * result of that many bytes (payloads.ts). A low-level SDK `Server`, so nothing but the
 * protocol runs.
 *
 *   node echo-upstream.mjs                 stdio, both eras (the opening message picks one)
 *   node echo-upstream.mjs --http          Streamable HTTP on 127.0.0.1, a free port; prints
 *                                          `{"url":"http://127.0.0.1:<port>/mcp"}` on stdout
 */
import { type CallToolResult, ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { serveEchoHttp } from './echo-http.js';
import { echoContent } from './payloads.js';

const ECHO_TOOL = {
  name: 'echo',
  description: 'Returns its text argument, or a text or image result of `size` bytes.',
  inputSchema: {
    type: 'object' as const,
    properties: {
      text: { type: 'string' },
      size: { type: 'integer', minimum: 1 },
      kind: { type: 'string', enum: ['text', 'utf8', 'image'] },
    },
    required: ['text'],
  },
};

/** A fresh echo server instance (one per connection, session or modern request). */
function createEchoServer(): Server {
  const server = new Server({ name: 'bench-echo', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', () => ({ tools: [ECHO_TOOL] }));
  server.setRequestHandler('tools/call', (request): CallToolResult => {
    if (request.params.name !== 'echo')
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return { content: [echoContent(request.params.arguments) as CallToolResult['content'][number]] };
  });
  return server;
}

if (process.argv.includes('--http')) {
  const { url } = await serveEchoHttp(createEchoServer);
  process.stdout.write(`${JSON.stringify({ url })}\n`);
} else {
  serveStdio(createEchoServer, {
    transport: new StdioServerTransport(),
    onerror: (error) => process.stderr.write(`echo-upstream: ${error.message}\n`),
  });
}
