import type { Host } from '../../host/host.js';
import { startState } from '../mcp/startup-wait.js';

/**
 * Probes for process managers and load balancers, open without authentication (they reveal
 * no server names, only counts):
 *  - `GET /healthz`: 200 while the gateway answers at all (liveness).
 *  - `GET /readyz`: 200 once its start is over, every configured server connected or failed
 *    (at least once) and listed (startup-wait.ts), else 503 with how many are still coming up (readiness: a
 *    balancer sends no client to a replica whose servers are not up yet).
 */
export const HEALTH_PATH = '/healthz';
export const READY_PATH = '/readyz';

export function healthRoute(pathname: string, method: string, host: Host): Response {
  if (method !== 'GET' && method !== 'HEAD') {
    return new Response(null, { status: 405, headers: { allow: 'GET, HEAD' } });
  }
  if (pathname === HEALTH_PATH) return json(200, { status: 'ok' });
  const states = host.servers();
  // Still coming up: connecting and not failed yet (one retrying after a failure is settled).
  const starting = states.filter((s) => s.state === 'connecting' && s.error === undefined).length;
  const { done } = startState(host);
  const ready = done && starting === 0;
  return json(ready ? 200 : 503, {
    status: ready ? 'ready' : 'starting',
    servers: states.length,
    connected: states.filter((s) => s.state === 'connected').length,
    starting,
  });
}

function json(status: number, body: Record<string, unknown>): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  });
}
