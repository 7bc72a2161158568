import { CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../src/client/connection.js';
import { untunnelTaskResult } from '../../src/client/tool-tasks.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import type { HttpGateway } from '../../src/gateway/http-gateway.js';
import { conformanceUpstreamBin } from '../fixtures/paths.js';
import { eventually } from '../helpers/wait.js';
import {
  callRaw,
  type GatewayUnderTest,
  passthrough,
  type Raw,
  rpcError,
  startGatewayUnderTest,
} from './modern-client.js';

/**
 * 2026-07-28 fidelity across the hop, end to end: a real gateway on 127.0.0.1 in front of the
 * conformance upstream fixture (a 2026-07-28 server over stdio), reached by an SDK v2 client
 * pinned to 2026-07-28 that drives `input_required` rounds and tasks itself. The upstream's
 * questions reach this client, its answers reach the upstream, the rounds' state is sealed
 * by the gateway, and tasks are routed back to the server that holds them.
 */
const TASKS = 'io.modelcontextprotocol/tasks';
let under: GatewayUnderTest;
let gateway: HttpGateway;

beforeAll(async () => {
  under = await startGatewayUnderTest({
    servers: [
      { name: 'up', command: process.execPath, args: [conformanceUpstreamBin, '--transport', 'stdio'] },
    ],
    ready: 'mcp__up__test_input_required_result_elicitation',
    mode: 'full-auto',
    consent: 'off',
  });
  gateway = under.gateway;
}, 60_000);

afterAll(async () => {
  await under?.close();
});

const connect = (capabilities: Record<string, unknown>) => under.connect(capabilities);

const call = callRaw;
const rpcCode = async (promise: Promise<unknown>) => (await rpcError(promise))?.code ?? 'resolved';

describe('gateway relay, 2026-07-28 client to 2026-07-28 upstream', () => {
  it('passes the upstream elicitation to the client and its answer back', async () => {
    const client = await connect({ elicitation: { form: {} } });
    const first = await call(client, 'test_input_required_result_elicitation');
    expect(first.resultType).toBe('input_required');
    const requests = first.inputRequests as Record<string, { method: string }>;
    expect(Object.keys(requests)).toEqual(['user_name']);
    expect(requests.user_name?.method).toBe('elicitation/create');
    const final = await call(client, 'test_input_required_result_elicitation', {
      inputResponses: { user_name: { action: 'accept', content: { name: 'Ada' } } },
      ...(first.requestState !== undefined && { requestState: first.requestState }),
    });
    expect((final.content as { text: string }[])[0]?.text).toBe('Hello, Ada!');
  });

  it('keeps the upstream requestState across two rounds, sealed by the gateway', async () => {
    const client = await connect({ elicitation: { form: {} } });
    const r1 = await call(client, 'test_input_required_result_multi_round');
    expect(typeof r1.requestState).toBe('string');
    const r2 = await call(client, 'test_input_required_result_multi_round', {
      inputResponses: { step1: { action: 'accept', content: { name: 'Ada' } } },
      requestState: r1.requestState,
    });
    expect(Object.keys(r2.inputRequests as Raw)).toEqual(['step2']);
    expect(r2.requestState).not.toBe(r1.requestState);
    const r3 = await call(client, 'test_input_required_result_multi_round', {
      inputResponses: { step2: { action: 'accept', content: { color: 'green' } } },
      requestState: r2.requestState,
    });
    expect((r3.content as { text: string }[])[0]?.text).toBe('Ada likes green');
  });

  it('refuses a tampered requestState and one borrowed from another call', async () => {
    const client = await connect({ elicitation: { form: {} } });
    const first = await call(client, 'test_input_required_result_tampered_state');
    const state = String(first.requestState);
    const tampered = `${state.slice(0, -2)}${state.endsWith('A') ? 'B' : 'A'}`;
    const confirm = { confirm: { action: 'accept', content: { ok: true } } };
    expect(
      await rpcCode(
        call(client, 'test_input_required_result_tampered_state', {
          inputResponses: confirm,
          requestState: tampered,
        }),
      ),
    ).toBe(-32602);
    expect(
      await rpcCode(
        call(client, 'test_input_required_result_request_state', {
          inputResponses: confirm,
          requestState: state,
        }),
      ),
    ).toBe(-32602);
  });

  it('asks only for what the client declared (its capabilities cross the hop)', async () => {
    const client = await connect({ roots: {} });
    const first = await call(client, 'test_input_required_result_capabilities');
    expect(Object.keys(first.inputRequests as Raw)).toEqual(['client_roots']);
  });

  it('relays a task: created upstream, polled and finished through the gateway', async () => {
    // The SDK client refuses `resultType: "task"`; Switchboard's own Connection reads it raw.
    const connection = new Connection({
      config: normalizeServerEntry({ name: 'gateway', url: gateway.url, protocol: 'modern' }),
    });
    await connection.connect();
    try {
      const declares = { _meta: { [CLIENT_CAPABILITIES_META_KEY]: { extensions: { [TASKS]: {} } } } };
      const created = await connection.request(
        'tools/call',
        { name: 'slow_compute', arguments: { seconds: 0, label: 'relay' }, ...declares },
        untunnelTaskResult,
      );
      expect(created.resultType).toBe('task');
      const taskId = String(created.taskId);
      expect(taskId.startsWith('sbt-')).toBe(true);
      const done = await eventually(
        () => connection.request('tasks/get', { taskId, ...declares }, (raw) => raw as Raw),
        (task) => task.status === 'completed',
        { what: 'completed the task', timeoutMs: 10_000 },
      );
      expect(done.taskId).toBe(taskId);
      expect(JSON.stringify(done.result)).toContain('Computed relay');
    } finally {
      await connection.close();
    }
  });

  it('answers -32021 to tasks/* from a client without the Tasks extension, and an unknown id otherwise', async () => {
    const plain = await connect({});
    expect(
      await rpcCode(
        plain.request({ method: 'tasks/get', params: { taskId: 'gate-test' } } as never, passthrough),
      ),
    ).toBe(-32021);
    const declaring = await connect({ extensions: { [TASKS]: {} } });
    expect(
      await rpcCode(
        declaring.request({ method: 'tasks/get', params: { taskId: 'gate-test' } } as never, passthrough),
      ),
    ).toBe(-32602);
  });
});
