import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { describe, expect, it, vi } from 'vitest';
import { shouldRunAsTask, untunnelTaskResult } from '../../src/client/tool-tasks.js';
import { ProgressRouter, tapTransport } from '../../src/client/transport-tap.js';

describe('ProgressRouter', () => {
  it('routes by token and forgets closed tokens', () => {
    const router = new ProgressRouter();
    const seen = vi.fn();
    const token = router.open(seen);
    const note = (t: string) =>
      ({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: t, progress: 1, total: 2 },
      }) as JSONRPCMessage;
    expect(router.deliver(note(token))).toBe(true);
    expect(seen).toHaveBeenCalledWith({ progress: 1, total: 2 });
    router.close(token);
    expect(router.deliver(note(token))).toBe(false);
    expect(
      router.deliver({ jsonrpc: '2.0', method: 'notifications/message', params: {} } as JSONRPCMessage),
    ).toBe(false);
  });
});

describe('tapTransport', () => {
  it('notes the offered version and tunnels task results in place', () => {
    const transport = {} as Transport;
    const tap = tapTransport(transport, new ProgressRouter());
    transport.onmessage?.({
      jsonrpc: '2.0',
      id: 1,
      result: { protocolVersion: '2025-06-18' },
    } as JSONRPCMessage);
    expect(tap.offered()).toBe('2025-06-18');
    const task = {
      jsonrpc: '2.0',
      id: 2,
      result: { resultType: 'task', taskId: 't1', status: 'working' },
    } as JSONRPCMessage;
    transport.onmessage?.(task);
    const result = (task as { result: Record<string, unknown> }).result;
    expect(result.resultType).toBe('complete');
    expect(untunnelTaskResult(result)).toEqual({ resultType: 'task', taskId: 't1', status: 'working' });
    expect(untunnelTaskResult({ content: [] })).toEqual({ content: [] });
  });
});

describe('shouldRunAsTask', () => {
  const legacyCaps = { tasks: { requests: { tools: { call: {} } } } };
  const modernCaps = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
  const tool = (taskSupport?: string) => ({
    name: 't',
    inputSchema: { type: 'object' as const },
    ...(taskSupport && { execution: { taskSupport } }),
  });

  it('follows the tool in 2025-11-25 and the opt-in in 2026-07-28', () => {
    expect(shouldRunAsTask('legacy', legacyCaps, tool('required') as never, false)).toBe(true);
    expect(shouldRunAsTask('legacy', legacyCaps, tool('optional') as never, false)).toBe(false);
    expect(shouldRunAsTask('legacy', legacyCaps, tool('optional') as never, true)).toBe(true);
    expect(shouldRunAsTask('legacy', legacyCaps, tool() as never, true)).toBe(false);
    expect(shouldRunAsTask('legacy', {}, tool('required') as never, true)).toBe(false);
    expect(shouldRunAsTask('modern', modernCaps, undefined, true)).toBe(true);
    expect(shouldRunAsTask('modern', modernCaps, undefined, false)).toBe(false);
    expect(shouldRunAsTask('modern', legacyCaps, undefined, true)).toBe(false);
  });
});
