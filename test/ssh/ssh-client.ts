/**
 * The SSH example server as a real stdio process, reached by an SDK v2 client that answers
 * elicitations with a test's function and records every question it was asked.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** One elicitation as the client saw it. */
export interface Asked {
  readonly message: string;
  readonly fields: string[];
}

type Reply = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };
/** Answers one question, at once or later (a promise that never settles: nobody answers). */
export type Answerer = (asked: Asked) => Reply | Promise<Reply>;

/** A connected client, its questions so far, and the server's stderr. */
export interface SshClient {
  readonly client: Client;
  readonly asked: Asked[];
  readonly stderr: () => string;
  call(
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ text: string; isError: boolean; structured: Record<string, unknown> | undefined }>;
  close(): Promise<void>;
}

/** Starts the server with `env` (added to a minimal environment: no ssh-agent, a test HOME). */
export async function startSshServer(options: {
  env: Record<string, string>;
  answer?: Answerer;
  era?: 'legacy' | 'auto';
}): Promise<SshClient> {
  const asked: Asked[] = [];
  const client = new Client(
    { name: 'ssh-test', version: '1.0.0' },
    {
      capabilities: options.answer ? { elicitation: { form: {} } } : {},
      versionNegotiation: { mode: options.era ?? 'legacy' },
    },
  );
  const answer = options.answer;
  if (answer)
    client.setRequestHandler('elicitation/create', (request) => {
      const params = request.params as {
        message: string;
        requestedSchema?: { properties?: Record<string, unknown> };
      };
      const entry = {
        message: params.message,
        fields: Object.keys(params.requestedSchema?.properties ?? {}),
      };
      asked.push(entry);
      return answer(entry) as never;
    });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', join(root, 'examples/servers/ssh/server.ts')],
    cwd: root,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  await client.connect(transport);
  return {
    client,
    asked,
    stderr: () => stderr,
    async call(name, args) {
      const result = await client.callTool({ name, arguments: args }, { timeout: 120_000 });
      const text = ((result.content ?? []) as { type: string; text?: string }[])
        .filter((c) => c.type === 'text')
        .map((c) => c.text ?? '')
        .join('\n');
      return {
        text,
        isError: result.isError === true,
        structured: result.structuredContent as Record<string, unknown> | undefined,
      };
    },
    close: () => client.close(),
  };
}

/** A fresh HOME (with the client key as ~/.ssh/id_ed25519), known_hosts, aliases and roots. */
export interface World {
  readonly env: Record<string, string>;
  readonly home: string;
  readonly knownHosts: string;
  readonly aliases: string;
  readonly localRoot: string;
  readonly remoteDir: string;
}

/** Lays out a world in a new temp folder under `base`. */
export async function makeWorld(
  base: string,
  clientKey: string,
  extraEnv: Record<string, string> = {},
): Promise<World> {
  const { mkdtemp, mkdir, copyFile, chmod } = await import('node:fs/promises');
  const dir = await mkdtemp(join(base, 'world-'));
  const home = join(dir, 'home');
  await mkdir(join(home, '.ssh'), { recursive: true, mode: 0o700 });
  await copyFile(clientKey, join(home, '.ssh', 'id_ed25519'));
  await chmod(join(home, '.ssh', 'id_ed25519'), 0o600);
  const localRoot = join(dir, 'local');
  const remoteDir = join(dir, 'remote');
  await mkdir(localRoot);
  await mkdir(remoteDir, { mode: 0o777 });
  await chmod(remoteDir, 0o777);
  await chmod(dir, 0o755);
  const knownHosts = join(home, '.ssh', 'known_hosts');
  const aliases = join(dir, 'config', 'ssh-aliases.json');
  return {
    env: {
      HOME: home,
      SSH_MCP_KNOWN_HOSTS: knownHosts,
      SSH_MCP_ALIASES: aliases,
      SSH_MCP_LOCAL_ROOT: localRoot,
      ...extraEnv,
    },
    home,
    knownHosts,
    aliases,
    localRoot,
    remoteDir,
  };
}
