import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { SwitchboardError } from '../../core/errors.js';

/**
 * A cassette: the MCP traffic of one session with a server, as JSON lines, so an agent's
 * tests can run against the recording instead of the server (replay-matcher.ts, the replay
 * server). The first line is the header; every other line is one JSON-RPC message with who
 * sent it and when, in milliseconds since the recording began:
 *
 *   {"cassette":1,"server":"files","recordedAt":"2026-12-02T12:00:00.000Z"}
 *   {"at":0.8,"from":"client","message":{"jsonrpc":"2.0","id":0,"method":"initialize",…}}
 *   {"at":41.2,"from":"server","message":{"jsonrpc":"2.0","id":0,"result":{…}}}
 *
 * JSON lines rather than one JSON document: a recording cut short by a crash is still read up
 * to its last whole line, and a person can diff two recordings. Pure.
 */

export const CASSETTE_VERSION = 1;

export interface CassetteHeader {
  readonly cassette: typeof CASSETTE_VERSION;
  /** The server recorded (its configured name). */
  readonly server: string;
  readonly recordedAt: string;
}

/** One message of the recording. */
export interface CassetteLine {
  readonly at: number;
  readonly from: 'client' | 'server';
  readonly message: JSONRPCMessage;
}

export interface Cassette {
  readonly header: CassetteHeader;
  readonly lines: readonly CassetteLine[];
}

export function headerLine(header: CassetteHeader): string {
  return JSON.stringify(header);
}

export function messageLine(line: CassetteLine): string {
  return JSON.stringify(line);
}

/**
 * Reads a cassette's text. A last line cut short (the recorder killed mid-write) is left out;
 * any other line that is not a message is an error naming its line number, as is a missing or
 * foreign header.
 */
export function parseCassette(text: string, file: string): Cassette {
  const rows = text.split('\n');
  // Without a final newline, the last row may be a write cut short.
  const partial = text.endsWith('\n') ? -1 : rows.length - 1;
  const invalid = (line: number, why: string) =>
    new SwitchboardError(
      'CONFIG_INVALID',
      `${file}:${line}: ${why}. Record it again with "switchboard record".`,
      {
        details: { file, line },
      },
    );
  const header = parseJson(rows[0] ?? '');
  if (!isHeader(header)) throw invalid(1, `not a cassette (version ${CASSETTE_VERSION} header expected)`);
  const lines: CassetteLine[] = [];
  for (let i = 1; i < rows.length; i++) {
    const row = rows[i]!;
    if (row.trim() === '') continue;
    const value = parseJson(row);
    if (value === undefined && i === partial) break;
    if (!isLine(value)) throw invalid(i + 1, 'not a recorded message');
    lines.push(value);
  }
  return { header, lines };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isHeader(value: unknown): value is CassetteHeader {
  const v = value as Partial<CassetteHeader> | undefined;
  return (
    typeof v === 'object' && v !== null && v.cassette === CASSETTE_VERSION && typeof v.server === 'string'
  );
}

function isLine(value: unknown): value is CassetteLine {
  const v = value as Partial<CassetteLine> | undefined;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.at === 'number' &&
    (v.from === 'client' || v.from === 'server') &&
    typeof v.message === 'object' &&
    v.message !== null &&
    (v.message as { jsonrpc?: unknown }).jsonrpc === '2.0'
  );
}
