/**
 * Rate-limit accuracy across replicas: clients hammer the balancer as one principal for a
 * while; the requests granted (all but 429) against what is configured, `burst + rate × t`.
 * Each of N replicas grants 1/N (docs/replicas.md), so a ratio near 1 says the split holds.
 */
import { Agent, request } from 'node:http';
import { TOKEN } from './bench-fleet.js';

export interface RateFigures {
  readonly granted: number;
  readonly refused: number;
  readonly configured: number;
  readonly seconds: number;
}

export async function rateAccuracy(options: {
  readonly balancer: string;
  readonly burst: number;
  readonly perSecond: number;
  readonly seconds: number;
  readonly workers: number;
}): Promise<RateFigures> {
  const url = new URL(`${options.balancer}/mcp`);
  const agent = new Agent({ keepAlive: true, maxSockets: options.workers });
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
  // A sessionless ping: refused with 400 once past the limits, or 429 by them.
  const send = () =>
    new Promise<number>((resolve, reject) => {
      const req = request(
        {
          agent,
          hostname: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: {
            authorization: `Bearer ${TOKEN}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          res.resume();
          res.once('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')));
      req.once('error', reject);
      req.end(body);
    });
  let granted = 0;
  let refused = 0;
  const started = performance.now();
  const until = started + options.seconds * 1000;
  try {
    await Promise.all(
      Array.from({ length: options.workers }, async () => {
        for (let i = 0; i < 1_000_000 && performance.now() < until; i++) {
          if ((await send()) === 429) refused++;
          else granted++;
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  const seconds = (performance.now() - started) / 1000;
  return { granted, refused, configured: options.burst + options.perSecond * seconds, seconds };
}
