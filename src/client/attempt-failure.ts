import type { Transport } from '@modelcontextprotocol/client';
import type { SwitchboardError } from '../core/errors.js';
import { classifyConnectFailure, type StdoutNoise } from './connect-errors.js';
import type { EraPlan } from './era.js';
import { HttpTransport } from './transports/http.js';
import { SseTransport } from './transports/sse.js';
import { StdioTransport } from './transports/stdio.js';
import { networkRefusal } from './upstream-transport.js';

/**
 * The typed error of a failed connect attempt, with what the transport saw: a stdio server's
 * exit and last stderr lines, an HTTP server's last failure, a network-policy refusal. Gathers the facts from the
 * transport; `classifyConnectFailure` (pure) decides.
 */
export function attemptFailure(input: {
  readonly server: string;
  readonly error: unknown;
  readonly transport: Transport;
  readonly plan: EraPlan;
  readonly connectMs: number;
  readonly offered: string | undefined;
  readonly probeServerError: number | undefined;
  readonly stdoutNoise: StdoutNoise;
}): SwitchboardError {
  const { transport } = input;
  // The network policy refused a connect: that is the answer, however the SDK wrapped it.
  const refused = networkRefusal(transport);
  if (refused) return refused;
  return classifyConnectFailure({
    server: input.server,
    error: input.error,
    plan: input.plan,
    connectMs: input.connectMs,
    ...(input.offered !== undefined && { offered: input.offered }),
    ...(input.probeServerError !== undefined && { probeServerError: input.probeServerError }),
    ...(transport instanceof StdioTransport && {
      ...(transport.exitInfo && { exit: transport.exitInfo }),
      stderrTail: transport.recentStderr,
      stdoutNoise: input.stdoutNoise,
    }),
    ...((transport instanceof HttpTransport || transport instanceof SseTransport) &&
      transport.lastFailure && { httpFailure: transport.lastFailure }),
  });
}
