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
    const log = streamLogger({ write: (line) => lines.push(line) });
    log.error('request r1 failed', new Error('boom'));
    log.warn('careful');
    expect(lines[0]).toMatch(/\[error\] request r1 failed\nError: boom\n {4}at /);
    expect(lines[1]).toMatch(/\[warn\] careful\n$/);
  });

  it('gathers access lines into one write, soon, and keeps them before a later warning', () => {
    const writes: string[] = [];
    const deferred: (() => void)[] = [];
    const log = streamLogger({ write: (text) => writes.push(text), defer: (run) => deferred.push(run) });
    log.access(entry);
    log.access({ ...entry, id: 'r2' });
    expect(writes).toEqual([]);
    expect(deferred).toHaveLength(1);
    deferred[0]?.();
    expect(writes).toEqual([`${formatAccessLine(entry)}\n${formatAccessLine({ ...entry, id: 'r2' })}\n`]);
    log.access({ ...entry, id: 'r3' });
    log.warn('careful');
    expect(writes).toHaveLength(3);
    expect(writes[1]).toContain(' r3 ');
    expect(writes[2]).toMatch(/\[warn\] careful\n$/);
    for (const run of deferred.splice(0)) run();
    expect(writes).toHaveLength(3);
  });

  it('writes at once when too many access lines are held', () => {
    const writes: string[] = [];
    const log = streamLogger({ write: (text) => writes.push(text), defer: () => {}, maxPendingLines: 3 });
    for (let i = 0; i < 7; i++) log.access({ ...entry, id: `r${i}` });
    expect(writes).toHaveLength(2);
    expect(writes.map((w) => w.split('\n').length - 1)).toEqual([3, 3]);
  });
});
