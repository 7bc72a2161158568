import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SwitchboardError } from '../../../src/core/errors.js';
import { normalizeServerEntry } from '../../../src/core/server-config.js';
import { ApiProblem, problemResponse } from '../../../src/gateway/api/api-errors.js';
import { joinTail, toApiLogLine } from '../../../src/gateway/api/log-view.js';
import { parseBody, parseQuery } from '../../../src/gateway/api/request-input.js';
import { fitsTemplate } from '../../../src/gateway/api/routes/catalog-routes.js';
import { entryOf, MASK } from '../../../src/gateway/api/server-entry.js';
import { isConfigFileSource } from '../../../src/gateway/api/server-view.js';
import { formatLogLine } from '../../../src/host/logs/log-line.js';
import { contextFor, recordingLogger } from '../http/harness.js';

/** The API's pure pieces: entries written back, log lines, templates, input checks, error mapping. */

describe('server entries written back', () => {
  const entries: Record<string, unknown>[] = [
    { name: 'a', command: 'npx', args: ['-y', 'x'], env: { KEY: '${KEY}' }, cwd: '/srv' },
    {
      name: 'b',
      url: 'https://example.com/mcp',
      headers: { Authorization: 'Bearer ${T}' },
      trust: 'trusted',
    },
    {
      name: 'c',
      transport: 'sse',
      url: 'http://127.0.0.1:9/sse',
      enabled: false,
      timeouts: { connect: 5, request: 30, startup: 300 },
      protocol: '2025-06-18',
      tools: { include: ['read_*'], exclude: ['read_secret'] },
      deferral: 'eager',
      description: 'd',
      title: 't',
      roots: [{ uri: 'file:///x', name: 'x' }],
    },
    {
      name: 'd',
      url: 'https://x.example/mcp',
      auth: { type: 'oauth', clientId: 'id', clientSecret: 's3cret', scopes: ['r'] },
    },
    { name: 'e', url: 'https://x.example/mcp', auth: { type: 'bearer', token: 'tok' }, protocol: 'legacy' },
  ];

  it('normalize to the same config again', () => {
    for (const raw of entries) {
      const config = normalizeServerEntry(raw);
      expect(normalizeServerEntry({ ...entryOf(config, { reveal: true }), name: config.name })).toEqual(
        config,
      );
    }
  });

  it('leave defaults out and mask credentials for those who may not see them', () => {
    expect(entryOf(normalizeServerEntry({ name: 'x', command: 'node' }), { reveal: true })).toEqual({
      command: 'node',
    });
    const masked = entryOf(normalizeServerEntry(entries[3]!), { reveal: false });
    expect(masked.auth).toMatchObject({ type: 'oauth', clientId: 'id', clientSecret: MASK });
    expect(entryOf(normalizeServerEntry(entries[0]!), { reveal: false }).env).toEqual({ KEY: MASK });
    expect(entryOf(normalizeServerEntry(entries[1]!), { reveal: false }).headers).toEqual({
      Authorization: MASK,
    });
  });

  it('tell config-file sources from entries added at run time', () => {
    expect(isConfigFileSource('config')).toBe(true);
    expect(isConfigFileSource(`${process.cwd()}/switchboard.json`)).toBe(true);
    expect(isConfigFileSource('api')).toBe(false);
    expect(isConfigFileSource('agent')).toBe(false);
  });
});

describe('log lines', () => {
  const at = new Date('2026-01-02T03:04:05.678Z');
  const line = (source: 'stderr' | 'server', level: string, text: string) =>
    formatLogLine({ at, source, level, text }).trimEnd();

  it('are split into time, source, level and text', () => {
    expect(toApiLogLine(line('stderr', 'info', 'boot'))).toEqual({
      at: at.toISOString(),
      source: 'stderr',
      text: 'boot',
    });
    expect(toApiLogLine(line('server', 'warning', 'hm'))).toEqual({
      at: at.toISOString(),
      source: 'server',
      level: 'warning',
      text: 'hm',
    });
    expect(toApiLogLine('free text')).toEqual({ text: 'free text' });
  });

  it('heard while the tail was read are added once', () => {
    expect(joinTail(['a', 'b'], ['c', 'd'])).toEqual(['a', 'b', 'c', 'd']);
    expect(joinTail(['a', 'b', 'c'], ['c', 'd'])).toEqual(['a', 'b', 'c', 'd']);
    expect(joinTail(['a', 'c', 'd'], ['c', 'd'])).toEqual(['a', 'c', 'd']);
    expect(joinTail([], ['c'])).toEqual(['c']);
    expect(joinTail(['a'], [])).toEqual(['a']);
  });
});

describe('URI templates', () => {
  it('fit the URIs their expressions can stand for', () => {
    expect(fitsTemplate('kitchen://items/{id}', 'kitchen://items/7')).toBe(true);
    expect(fitsTemplate('kitchen://items/{id}', 'kitchen://items/')).toBe(false);
    expect(fitsTemplate('file:///{path}.txt', 'file:///a/b.txt')).toBe(true);
    expect(fitsTemplate('a+b://{x}', 'aab://1')).toBe(false);
  });
});

describe('request input', () => {
  const body = z.strictObject({ arguments: z.record(z.string(), z.unknown()).optional() });

  it('names the field and the fix', () => {
    const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
    expect(parseBody(undefined, body)).toEqual({});
    expect(() => parseBody(bytes({ argument: {} }), body)).toThrow(
      /field "argument".*Did you mean "arguments"/,
    );
    expect(() => parseBody(bytes([1]), body)).toThrow(/^The request body is not valid: expected object/);
    expect(() => parseBody(new TextEncoder().encode('{'), body)).toThrow(/not JSON/);
    const query = z.strictObject({ limit: z.coerce.number().int().max(5).optional() });
    expect(parseQuery(new URLSearchParams('limit=3'), query)).toEqual({ limit: 3 });
    expect(parseQuery(new URLSearchParams('limit='), query)).toEqual({});
    expect(() => parseQuery(new URLSearchParams('limit=9'), query)).toThrow(/field "limit"/);
    expect(() => parseQuery(new URLSearchParams('limit=1&limit=2'), query)).toThrow(/given twice/);
  });
});

describe('errors as responses', () => {
  const respond = async (error: unknown) => {
    const log = recordingLogger();
    const response = problemResponse(
      error,
      contextFor(new Request('http://127.0.0.1/api/x'), { log, id: 'req-1' }),
    );
    return {
      status: response.status,
      body: (await response.json()) as { error: Record<string, unknown> },
      log,
    };
  };

  it('keep the code and message of host errors, with the status their code means', async () => {
    const notFound = await respond(
      new SwitchboardError('NOT_FOUND', 'No such thing.', { details: { x: 1 } }),
    );
    expect(notFound).toMatchObject({
      status: 404,
      body: { error: { code: 'NOT_FOUND', message: 'No such thing.', details: { x: 1 } } },
    });
    const invalidParams = new SwitchboardError('UPSTREAM_ERROR', 'bad', { details: { rpcCode: -32602 } });
    expect((await respond(invalidParams)).status).toBe(400);
    expect((await respond(new SwitchboardError('UPSTREAM_ERROR', 'down'))).status).toBe(502);
    expect((await respond(new SwitchboardError('APPROVAL_DECLINED', 'no'))).status).toBe(403);
    expect((await respond(new ApiProblem(409, 'X', 'y'))).body).toEqual({
      error: { code: 'X', message: 'y' },
    });
  });

  it('show only the request id for anything else, and log the details', async () => {
    const failure = await respond(new TypeError('secret internals'));
    expect(failure.status).toBe(500);
    expect(failure.body.error).toEqual({
      code: 'INTERNAL',
      message: expect.stringContaining('req-1'),
      details: { requestId: 'req-1' },
    });
    expect(JSON.stringify(failure.body)).not.toContain('secret internals');
    expect(failure.log.errors).toHaveLength(1);
  });
});
