import type { Counter, UpDownCounter } from '@opentelemetry/api';
import { meterBound } from './meter-bound.js';
import {
  METRIC_APPROVALS_WAITING,
  METRIC_RATE_LIMITED,
  METRIC_UPSTREAM_RECONNECTS,
  SWITCHBOARD_LIMIT,
  SWITCHBOARD_OUTCOME,
  SWITCHBOARD_RECONNECT_REASON,
  SWITCHBOARD_SERVER,
} from './semconv.js';

/**
 * The counters several layers add to, made in one place so each is one instrument (a second
 * `createCounter` of the same name with another description is a duplicate registration the
 * SDK warns of). Each `count*` is one comparison when no meter records.
 */
const counters = meterBound((meter) => ({
  reconnects: meter.createCounter(METRIC_UPSTREAM_RECONNECTS, {
    description: 'Reconnect attempts to upstream servers, by server, reason and outcome.',
    unit: '{reconnect}',
  }) as Counter,
  rateLimited: meter.createCounter(METRIC_RATE_LIMITED, {
    description: 'Requests the gateway refused with 429 because a rate limit was spent, by limit.',
    unit: '{request}',
  }) as Counter,
  approvalsWaiting: meter.createUpDownCounter(METRIC_APPROVALS_WAITING, {
    description: 'Tool calls waiting for a person to approve them, by server.',
    unit: '{call}',
  }) as UpDownCounter,
}));

/** One reconnect attempt of `server` ended (`ok` or `error`). */
export function countReconnect(server: string, reason: string, outcome: 'ok' | 'error'): void {
  const { on, instruments } = counters();
  if (on)
    instruments.reconnects.add(1, {
      [SWITCHBOARD_SERVER]: server,
      [SWITCHBOARD_RECONNECT_REASON]: reason,
      [SWITCHBOARD_OUTCOME]: outcome,
    });
}

/** A request was refused by the rate limit `by` (`ip` or `principal`). */
export function countRateLimited(by: string): void {
  const { on, instruments } = counters();
  if (on) instruments.rateLimited.add(1, { [SWITCHBOARD_LIMIT]: by });
}

/** A call of `server` starts (+1) or stops (-1) waiting for approval. */
export function countApprovalWaiting(server: string, delta: 1 | -1): void {
  const { on, instruments } = counters();
  if (on) instruments.approvalsWaiting.add(delta, { [SWITCHBOARD_SERVER]: server });
}
