import { describe, expect, it } from 'vitest';
import { formatAccessLine, streamLogger } from '../../../src/gateway/http/access-log.js';

describe('access log', () => {
  const entry = {
    at: new Date('2030-01-01T00:00:00.000Z'),
    id: 'r1',
    method: 'POST',
    path: '/mcp',
    status: 200,
    ms: 12.4,
    principal: 'ci',
    remoteAddress: '127.0.0.1',
  };

  it('writes one line with id, method, path, status, time, principal and address', () => {
    expect(formatAccessLine(entry)).toBe(
      '2030-01-01T00:00:00.000Z [access] r1 POST /mcp 200 12ms ci 127.0.0.1',
    );
    const { principal: _, ...anonymous } = entry;
    expect(formatAccessLine(anonymous)).toContain(' 200 12ms - 127.0.0.1');
  });

  it('keeps client-chosen values from forging lines or columns', () => {
    const line = formatAccessLine({ ...entry, principal: 'evil\n2030 [access] forged x', path: '/a b' });
    expect(line).not.toContain('\n');
    expect(line.split(' ')).toHaveLength(9);
  });

  it('logs errors with their stack to the stream, one event per write', () => {
    const lines: string[] = [];
    const log = streamLogger((line) => lines.push(line));
    log.error('request r1 failed', new Error('boom'));
    log.warn('careful');
    expect(lines[0]).toMatch(/\[error\] request r1 failed\nError: boom\n {4}at /);
    expect(lines[1]).toMatch(/\[warn\] careful\n$/);
  });
});
