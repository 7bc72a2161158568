import { lazy, type Verb } from './cli-context.js';

/** The verbs that record a server's traffic and serve it back: record, replay. */
export const REPLAY_VERBS: Readonly<Record<string, Verb>> = {
  record: lazy(
    {
      summary: "stands in for a server on stdio and writes the client's session to a cassette",
      examples: ['switchboard record files --out files.cassette.jsonl'],
    },
    () => import('./record-command.js'),
    (m) => ({ run: m.recordCommand, usage: m.RECORD_USAGE }),
  ),
  replay: lazy(
    {
      summary: 'serves a cassette as an MCP server (stdio, or --http) for tests without the server',
      examples: [
        'switchboard replay files.cassette.jsonl',
        'switchboard replay files.cassette.jsonl --http --port 0',
      ],
    },
    () => import('./replay-command.js'),
    (m) => ({ run: m.replayCommand, usage: m.REPLAY_USAGE }),
  ),
};
