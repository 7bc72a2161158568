import { describe, expect, it } from 'vitest';
import { authorize } from '../../../../src/gateway/http/middleware/authorize.js';
import { createPrincipal } from '../../../../src/gateway/http/principal.js';
import { contextFor, runStep } from '../harness.js';

describe('authorize', () => {
  const request = () => new Request('http://127.0.0.1/mcp');

  it('refuses a principal whose grants allow nothing', async () => {
    for (const grants of [
      { servers: [], tools: ['*'] },
      { servers: ['*'], tools: [] },
    ]) {
      const principal = createPrincipal({ id: 'nobody', kind: 'jwt', grants });
      const { error, nextCalls } = await runStep(authorize(), contextFor(request(), { principal }));
      expect(error?.status).toBe(403);
      expect(nextCalls).toBe(0);
    }
  });

  it('passes a principal with some grant, leaving finer checks to the MCP layer', async () => {
    const principal = createPrincipal({
      id: 'ci',
      kind: 'token',
      grants: { servers: ['fs'], tools: ['read_*'] },
    });
    expect((await runStep(authorize(), contextFor(request(), { principal }))).nextCalls).toBe(1);
  });

  it('fails loudly when placed before authentication', async () => {
    await expect(runStep(authorize(), contextFor(request()))).rejects.toThrow(/before authentication/);
  });
});
