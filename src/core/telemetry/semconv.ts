/**
 * The attribute and metric names Switchboard's spans and metrics carry, each from the
 * OpenTelemetry semantic conventions where one exists. The MCP conventions (status:
 * Development) are "Semantic conventions for Model Context Protocol (MCP)",
 * https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/ (kept in the
 * semantic-conventions-genai repository, docs/gen-ai/mcp.md); they reuse the GenAI, JSON-RPC,
 * RPC, network and error registries. Names of our own, for what no convention covers (which
 * configured server, which principal, the gateway's own gauges), live under `switchboard.`,
 * as the conventions ask of vendor-specific names ("Attribute naming", name prefixes).
 *
 * Written out here rather than imported from `@opentelemetry/semantic-conventions`: its
 * incubating entry point, where the MCP names are, is not a stable import path, and the
 * library layers depend on `@opentelemetry/api` alone.
 */

/** MCP conventions, "Client"/"Server" span attributes (registry: attributes/mcp). */
export const MCP_METHOD_NAME = 'mcp.method.name';
export const MCP_SESSION_ID = 'mcp.session.id';
export const MCP_PROTOCOL_VERSION = 'mcp.protocol.version';
export const MCP_RESOURCE_URI = 'mcp.resource.uri';

/** GenAI registry, as the MCP conventions use it: `gen_ai.tool.name` on `tools/call`, `gen_ai.prompt.name` on `prompts/get`. */
export const GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const GEN_AI_PROMPT_NAME = 'gen_ai.prompt.name';
/** MCP conventions: SHOULD be `execute_tool` on a tool call span, and SHOULD NOT be set otherwise. */
export const GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const EXECUTE_TOOL = 'execute_tool';

/** JSON-RPC registry: the request `id` as a string; not set for notifications or `id: null`. */
export const JSONRPC_REQUEST_ID = 'jsonrpc.request.id';
/** RPC registry: the JSON-RPC error code of the response, when it has one (e.g. `-32602`). */
export const RPC_RESPONSE_STATUS_CODE = 'rpc.response.status_code';
/**
 * Error registry (stable): the class of error. For MCP, the JSON-RPC error code as a string,
 * or `tool_error` for a `CallToolResult` with `isError: true` (MCP conventions, note on
 * `error.type`); our own `SwitchboardError` code where the failure is ours (`REQUEST_TIMEOUT`).
 */
export const ERROR_TYPE = 'error.type';
export const TOOL_ERROR = 'tool_error';
/** Error registry: the value when a failure has no better class. */
export const ERROR_TYPE_OTHER = '_OTHER';

/** Network registry: `tcp` for HTTP transports, `pipe` for stdio (MCP conventions, `network.transport`). */
export const NETWORK_TRANSPORT = 'network.transport';
export const NETWORK_PROTOCOL_NAME = 'network.protocol.name';
export const SERVER_ADDRESS = 'server.address';
export const SERVER_PORT = 'server.port';

/** Ours: the configured name of the upstream server a request went to (or a tool belongs to). */
export const SWITCHBOARD_SERVER = 'switchboard.server.name';
/** Ours: the id of the gateway principal a request was served for (never a secret: an id). */
export const SWITCHBOARD_PRINCIPAL = 'switchboard.principal.id';
/** Ours: the protocol era of a request (`legacy` 2024-11-05…2025-11-25, `modern` 2026-07-28). */
export const SWITCHBOARD_ERA = 'switchboard.mcp.era';
/** Ours: the state of an upstream connection (`connected`, `reconnecting`, `failed`, …). */
export const SWITCHBOARD_STATE = 'switchboard.upstream.state';
/**
 * Ours: how an operation ended, in one low-cardinality word (`ok`, `tool_error`, `error`,
 * `denied`, `declined`, `refused`, `cancelled`, `timeout`). `error.type` says which error;
 * this says what a person reading a dashboard asks first, and is set on success too.
 */
export const SWITCHBOARD_OUTCOME = 'switchboard.outcome';
/** Ours: our `SwitchboardError` code where a failure has one (`POLICY_DENIED`, `REQUEST_TIMEOUT`), beside the JSON-RPC `error.type`. */
export const SWITCHBOARD_ERROR_CODE = 'switchboard.error.code';
/** Ours: policy's verdict (`allow`, `ask`, `deny`), its reason and the tool's risk, on the policy span. */
export const SWITCHBOARD_POLICY_VERDICT = 'switchboard.policy.verdict';
export const SWITCHBOARD_POLICY_REASON = 'switchboard.policy.reason';
export const SWITCHBOARD_POLICY_RISK = 'switchboard.policy.risk';
/** Ours: what a consent or elicitation wait ended with (`accept`, `decline`, `cancel`, `asked`, `refused`). */
export const SWITCHBOARD_ANSWER = 'switchboard.answer';
/** Ours: the 1-based number of a round of a multi-round request (2026-07-28 `input_required` rounds). */
export const SWITCHBOARD_ROUND = 'switchboard.round';
/** Ours: the id of an MCP task a step belongs to. */
export const SWITCHBOARD_TASK_ID = 'switchboard.task.id';
/** Ours: why a reconnect happened (`dropped`, `session_expired`, `retry`). */
export const SWITCHBOARD_RECONNECT_REASON = 'switchboard.reconnect.reason';

/**
 * Our INTERNAL span names, for what the conventions have no span for. Each is a child of the
 * call it belongs to (the gateway's SERVER span, or whatever span an embedding app has
 * active), except connects, reconnects and OAuth refreshes, which start traces of their own
 * when nothing is active (a supervisor's reconnect belongs to no call).
 */
export const SPAN_POLICY = 'switchboard.policy.decide';
export const SPAN_APPROVAL = 'switchboard.approval.wait';
export const SPAN_CONSENT = 'switchboard.consent';
export const SPAN_ELICITATION = 'switchboard.elicitation.wait';
export const SPAN_CONNECT = 'switchboard.upstream.connect';
export const SPAN_RECONNECT = 'switchboard.upstream.reconnect';
export const SPAN_OAUTH_REFRESH = 'switchboard.oauth.refresh';
export const SPAN_ROUND = 'switchboard.request.round';
export const SPAN_TASK = 'switchboard.task';

/**
 * MCP conventions, "Metrics": histograms in seconds, with the advisory bucket boundaries the
 * conventions give for `mcp.*.operation.duration` and `mcp.*.session.duration`.
 */
export const MCP_SERVER_OPERATION_DURATION = 'mcp.server.operation.duration';
export const MCP_CLIENT_OPERATION_DURATION = 'mcp.client.operation.duration';
export const MCP_SERVER_SESSION_DURATION = 'mcp.server.session.duration';
export const OPERATION_BUCKETS_S = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300] as const;

/**
 * Our counters and gauges. Names follow "Metrics" naming guidance in the general conventions
 * (https://opentelemetry.io/docs/specs/semconv/general/metrics/): dot-separated namespaces,
 * the unit in `unit` (never in the name), UpDownCounters for things that rise and fall (no
 * `.count`/`.total` suffix; Prometheus exporters add `_total` to counters themselves).
 * There is no convention for these; they are ours, under `switchboard.`.
 */
export const METRIC_UPSTREAM_RECONNECTS = 'switchboard.upstream.reconnects';
export const METRIC_UPSTREAM_ACTIVE = 'switchboard.upstream.requests.active';
export const METRIC_RATE_LIMITED = 'switchboard.gateway.rate_limited';
export const METRIC_APPROVALS_WAITING = 'switchboard.approvals.waiting';
export const METRIC_AUDIT_QUEUE = 'switchboard.audit.queue.depth';
/** Ours: which rate limit refused (`ip`, `principal`). */
export const SWITCHBOARD_LIMIT = 'switchboard.rate_limit.by';

/** The instrumentation scope of every span and instrument Switchboard makes. */
export const INSTRUMENTATION_SCOPE = 'mcp-switchboard';
export const INSTRUMENTATION_VERSION = '0.1.0';
