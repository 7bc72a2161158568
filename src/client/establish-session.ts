import { describeError, SwitchboardError } from '../core/errors.js';
import { type AttemptWiring, openSession, type Session } from './connect-attempt.js';
import { planRecovery } from './connect-recovery.js';
import { type EraVerdictStore, isModernVersion, planEra, serverIdentity, verdictOf } from './era.js';
import { mapSdkError } from './error-mapping.js';

/**
 * A connect from start to end: the era plan (from the entry and any remembered verdict), the
 * attempt, at most one recovery attempt (connect-recovery.ts), and what the connect taught
 * about the server's era, remembered only when the server answered the probe (era.ts).
 */
export interface EstablishOptions extends AttemptWiring {
  readonly eraStore: EraVerdictStore;
  /** How long the `server/discover` probe may wait for its answer. */
  readonly probeTimeoutMs: number;
}

export async function establishSession(options: EstablishOptions): Promise<Session> {
  const { config, eraStore, log } = options;
  const identity = serverIdentity(config.transport);
  const plan = planEra(config.protocol, eraStore.get(identity), Date.now(), options.probeTimeoutMs);
  let session: Session;
  let used = plan;
  let taught: 'legacy' | undefined;
  try {
    try {
      session = await openSession({ plan }, options);
    } catch (error) {
      const retry = options.closed() ? undefined : planRecovery(error, plan, config);
      if (!retry) throw error;
      if (retry.forgetVerdict) eraStore.delete(identity);
      log('lifecycle', 'info', `retrying connect: ${retry.reason}`);
      used = retry.attempt.plan;
      try {
        session = await openSession(retry.attempt, options);
        taught = retry.teaches;
      } catch (second) {
        // When a fallback (HTTP+SSE, initialize after a failed probe) fails too, the first
        // answer is the one that explains.
        const fallback = retry.attempt.sse === true || retry.teaches !== undefined;
        if (!fallback || !(error instanceof SwitchboardError)) throw second;
        log('lifecycle', 'info', `the fallback failed too: ${describeError(second)}`);
        throw error;
      }
    }
  } catch (error) {
    throw error instanceof SwitchboardError ? error : mapSdkError(error, config.name, 'connect');
  }
  const version = session.client.getNegotiatedProtocolVersion();
  const era = isModernVersion(version) ? 'modern' : 'legacy';
  const probe = session.tap.probe();
  const discover = session.client.getDiscoverResult();
  const verdict =
    taught === 'legacy' && era === 'legacy'
      ? ({ kind: 'legacy', at: Date.now() } as const)
      : verdictOf(config.protocol, { plan: used, era, probe, at: Date.now(), ...(discover && { discover }) });
  if (verdict) eraStore.set(identity, verdict);
  else if (config.protocol.kind === 'auto' && probe === 'unanswered') {
    log(
      'lifecycle',
      'info',
      `server/discover got no answer within ${options.probeTimeoutMs} ms; connected with initialize (${era}), ` +
        'and the server is probed again on the next connect',
    );
  }
  return session;
}
