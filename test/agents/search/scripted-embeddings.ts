import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted OpenAI-compatible embeddings endpoint on 127.0.0.1 for tests. Its vectors are
 * bags of "meanings": each word maps to a dimension, and words listed as alike share one, so
 * a query can be close to a tool it shares no word with. `mode` scripts how it misbehaves.
 */
export type EndpointMode = 'ok' | 'error' | 'malformed' | 'wrong-count' | 'hang';

export interface ScriptedEmbeddings {
  readonly url: string;
  mode: EndpointMode;
  /** Requests received, with the texts of each. */
  readonly requests: string[][];
  /** Resolves when the next request arrives. */
  nextRequest(): Promise<void>;
  close(): Promise<void>;
}

const DIMS = 64;

export async function startScriptedEmbeddings(
  alike: readonly (readonly string[])[],
): Promise<ScriptedEmbeddings> {
  const meaning = new Map<string, number>();
  alike.forEach((words, i) => {
    for (const w of words) meaning.set(w, i);
  });
  const dimOf = (word: string) => {
    const known = meaning.get(word);
    if (known !== undefined) return known;
    let h = 0;
    for (const c of word) h = (h * 31 + c.charCodeAt(0)) >>> 0;
    return alike.length + (h % (DIMS - alike.length));
  };
  const embed = (text: string) => {
    const v: number[] = new Array<number>(DIMS).fill(0);
    for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) v[dimOf(word)]! += 1;
    if (!v.some((x) => x !== 0)) v[DIMS - 1] = 1;
    return v;
  };
  const hanging = new Set<ServerResponse>();
  const waiters: (() => void)[] = [];
  const state: { mode: EndpointMode } = { mode: 'ok' };
  const requests: string[][] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      const input = (JSON.parse(body) as { input: string[] }).input;
      requests.push(input);
      for (const w of waiters.splice(0)) w();
      const send = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(typeof value === 'string' ? value : JSON.stringify(value));
      };
      switch (state.mode) {
        case 'error':
          return send(500, { error: { message: 'scripted failure' } });
        case 'malformed':
          return send(200, '{"data": [ not json');
        case 'wrong-count':
          return send(200, { data: [{ index: 0, embedding: embed('x') }].slice(0, input.length - 1) });
        case 'hang':
          hanging.add(res);
          return;
        default:
          return send(200, {
            object: 'list',
            data: input
              .map((text, index) => ({ object: 'embedding', index, embedding: embed(text) }))
              .reverse(),
          });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/embeddings`,
    get mode() {
      return state.mode;
    },
    set mode(mode: EndpointMode) {
      state.mode = mode;
    },
    requests,
    nextRequest: () => new Promise<void>((resolve) => waiters.push(resolve)),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
