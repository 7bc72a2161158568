#!/usr/bin/env node
/**
 * The client under test for the official MCP conformance suite
 * (`@modelcontextprotocol/conformance`, client mode), built on our `Connection`.
 * Run by `npm run conformance:client` (scripts/conformance-client.mjs bundles this file with
 * esbuild and runs it under Node 24); see docs/conformance.md.
 *
 * Protocol with the suite and the runner:
 *  - the server URL is the last CLI argument;
 *  - `MCP_CONFORMANCE_SCENARIO` names the scenario; `MCP_CONFORMANCE_PROTOCOL_VERSION` (suite
 *    0.2.x only) the wire its server speaks; `MCP_CONFORMANCE_CONTEXT` (JSON) extra input;
 *  - after a handler ran to its end and its Connection is closed,
 *    `<SWITCHBOARD_CONFORMANCE_MARKERS>/<scenario>.done` is written; nothing is written for an
 *    unknown scenario, a scenario not implemented yet, or on an error;
 *  - exit 0 on success, 1 with a message on stderr otherwise.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/client';
import type { ElicitationHandler, SamplingHandler } from '../../src/client/index.js';
import { describeError, isSwitchboardError } from '../../src/core/index.js';
import { AUTH_HANDLERS } from './auth-scenarios.js';
import {
  callOk,
  fail,
  type Handler,
  isRecord,
  NotImplementedError,
  PROGRAM,
  requireTool,
  type ScenarioContext,
  ScenarioFailure,
  toolNames,
  withConnection,
} from './scenario-kit.js';

const METHOD_NOT_FOUND = -32601;

/** Declared so its capability is announced; no conformance scenario asks for a completion. */
const refuseSampling: SamplingHandler = async () => {
  throw new Error('sampling is not available in the conformance client');
};

// ---- scenario handlers ---------------------------------------------------------------------

/** `initialize`: the server checks the initialize params (version, clientInfo). */
const initialize: Handler = (ctx) =>
  withConnection(ctx, {}, async (conn) => {
    await conn.listTools();
  });

/** `tools_call`: `add_numbers(a, b)` must be called with numbers. */
const toolsCall: Handler = (ctx) =>
  withConnection(ctx, {}, async (conn) => {
    await requireTool(conn, 'add_numbers');
    const result = await callOk(conn, 'add_numbers', { a: 5, b: 3 });
    if (!result.text.includes('8')) fail(`add_numbers(5, 3) answered "${result.text}"`);
  });

/**
 * `elicitation-sep1034-client-defaults`: accept with empty content; the Connection fills the
 * omitted fields from the schema's defaults (SEP-1034).
 */
const elicitationDefaults: Handler = (ctx) => {
  let asked = 0;
  const elicitation: ElicitationHandler = async () => {
    asked++;
    return { action: 'accept', content: {} };
  };
  return withConnection(ctx, { elicitation }, async (conn) => {
    const result = await callOk(conn, 'test_client_elicitation_defaults');
    if (asked !== 1) fail(`expected one elicitation, got ${asked}`);
    if (!result.text.startsWith('Elicitation completed')) fail(`unexpected tool result: ${result.text}`);
  });
};

/**
 * `sse-retry`: the tool call's SSE stream closes without an answer; the client must resume
 * with a GET after `retry` ms carrying `Last-Event-ID`, and gets the result there.
 */
const sseRetry: Handler = (ctx) =>
  withConnection(ctx, {}, async (conn) => {
    const result = await callOk(conn, 'test_reconnection');
    if (!result.text.includes('Reconnection test completed')) fail(`unexpected tool result: ${result.text}`);
  });

/**
 * `request-metadata` (2026 wire): every request carries the version header and `_meta`
 * (version, capabilities, clientInfo); the first POST is refused with -32022 and must be
 * retried (under `auto` that first POST is the `server/discover` probe). Roots, sampling and
 * elicitation are all declared so their checks can pass. The server answers any `tools/call`,
 * so one is sent too: every request kind we send is checked, not just lists.
 */
const requestMetadata: Handler = (ctx) =>
  withConnection(ctx, { sampling: refuseSampling }, async (conn) => {
    await conn.listTools();
    await conn.callTool('request_metadata_probe', {});
  });

/**
 * `sep-2322-client-request-state` (2026 wire): `input_required` results are fulfilled through
 * the elicitation handler and retried with the same `requestState`; a plain result is complete.
 *
 * `test_mrtr_no_result_type` answers without `resultType` although the server negotiated
 * 2026-07-28, where the field is required (the absent-means-complete rule covers results from
 * earlier-revision servers only; modelcontextprotocol/conformance#475). The check is only that
 * the client does not retry, so both a complete result and the SDK's strict "missing required
 * resultType" refusal are accepted; anything else fails.
 */
const requestState: Handler = (ctx) => {
  const asked: string[] = [];
  const elicitation: ElicitationHandler = async (params) => {
    asked.push(params.message);
    return { action: 'accept', content: { confirmed: true } };
  };
  return withConnection(ctx, { elicitation }, async (conn) => {
    const tools = [
      'test_mrtr_echo_state',
      'test_mrtr_no_state',
      'test_mrtr_unrelated',
      'test_mrtr_no_result_type',
    ];
    const names = await toolNames(conn);
    const missing = tools.filter((t) => !names.includes(t));
    if (missing.length > 0) fail(`tools not listed: ${missing.join(', ')}`);
    // All at once, and every call settles before the connection closes: the unrelated call
    // must stay free of the others' input responses.
    const settled = await Promise.allSettled(tools.map((t) => callOk(conn, t)));
    const problems: string[] = [];
    settled.forEach((outcome, i) => {
      const tool = tools[i]!;
      if (outcome.status === 'fulfilled') return;
      if (tool === 'test_mrtr_no_result_type' && isMissingResultType(outcome.reason)) {
        process.stderr.write(`[${PROGRAM}] ${tool}: refused as invalid on 2026-07-28 (no retry): expected\n`);
        return;
      }
      problems.push(`${tool}: ${describeError(outcome.reason)}`);
    });
    if (problems.length > 0) fail(problems.join('; '));
    if (asked.length !== 2)
      fail(`expected 2 elicitations (one per input_required tool), got ${asked.length}`);
  });
};

/** The SDK's refusal of a 2026-07-28 result without `resultType`, as the Connection maps it
 * (UPSTREAM_PROTOCOL: the server answered in a shape the protocol does not allow). */
function isMissingResultType(error: unknown): boolean {
  if (!isSwitchboardError(error, 'UPSTREAM_PROTOCOL')) return false;
  const cause = error.cause;
  return isRecord(cause) && isRecord(cause.data) && cause.data.violation === 'missing-resultType';
}

/** `http-standard-headers` (2026 wire): `Mcp-Method` on every request, `Mcp-Name` where defined. */
const standardHeaders: Handler = (ctx) =>
  withConnection(ctx, {}, async (conn) => {
    await requireTool(conn, 'test_headers');
    await callOk(conn, 'test_headers');
    const { items: resources } = await conn.listResources();
    const first = resources[0];
    if (!first) fail('resources/list returned no resource to read');
    await conn.readResource(first.uri);
    const { items: prompts } = await conn.listPrompts();
    if (!prompts.some((p) => p.name === 'test_prompt')) fail('prompt "test_prompt" is not listed');
    await conn.getPrompt('test_prompt');
  });

/**
 * `http-custom-headers` (2026 wire): the calls come from `MCP_CONFORMANCE_CONTEXT.toolCalls`;
 * the Connection mirrors `x-mcp-header` parameters into `Mcp-Param-*` headers.
 */
const customHeaders: Handler = (ctx) => {
  const calls = ctx.context?.toolCalls;
  if (!Array.isArray(calls) || calls.length === 0) fail('MCP_CONFORMANCE_CONTEXT has no toolCalls');
  return withConnection(ctx, {}, async (conn) => {
    const names = await toolNames(conn);
    for (const call of calls) {
      if (!isRecord(call) || typeof call.name !== 'string')
        fail(`malformed tool call in context: ${JSON.stringify(call)}`);
      if (!names.includes(call.name)) fail(`tool "${call.name}" is not listed`);
      await callOk(conn, call.name, isRecord(call.arguments) ? call.arguments : {});
    }
  });
};

/**
 * `http-invalid-tool-headers` (2026 wire): tools with invalid `x-mcp-header` annotations must
 * be dropped from the list; every tool that survives is called (only `valid_tool` should).
 * The correct behaviour is the refusal, so surviving invalid tools fail the handler.
 */
const invalidToolHeaders: Handler = (ctx) =>
  withConnection(ctx, {}, async (conn) => {
    const { items } = await conn.listTools();
    const names = items.map((t) => t.name);
    if (!names.includes('valid_tool')) fail(`valid_tool was dropped (tools: ${names.join(', ') || 'none'})`);
    const survivors = names.filter((n) => n !== 'valid_tool');
    for (const tool of items) {
      await callOk(
        conn,
        tool.name,
        tool.name === 'valid_tool' ? { region: 'us-west1' } : placeholderArgs(tool),
      );
    }
    if (survivors.length > 0) {
      fail(`tools with invalid x-mcp-header annotations were kept and called: ${survivors.join(', ')}`);
    }
  });

/** Arguments for a tool we know nothing about: one placeholder per required property. */
function placeholderArgs(tool: Tool): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const key of tool.inputSchema.required ?? []) {
    const property = tool.inputSchema.properties?.[key];
    const type = isRecord(property) ? property.type : undefined;
    args[key] =
      type === 'number' || type === 'integer'
        ? 1
        : type === 'boolean'
          ? true
          : type === 'object'
            ? {}
            : type === 'array'
              ? []
              : type === 'null'
                ? null
                : 'x';
  }
  return args;
}

/**
 * `json-schema-ref-no-deref` (2026 wire): a tool schema `$ref`s a canary URL that must never
 * be fetched. The tool is also called, so the schema handling on our call path (header
 * mirroring walks the input schema) is exercised too; the scenario's server implements only
 * `tools/list`, so "method not found" is the expected answer to the call.
 */
const refNoDeref: Handler = (ctx) =>
  withConnection(ctx, {}, async (conn) => {
    await requireTool(conn, 'lookup_user');
    try {
      await conn.callTool('lookup_user', { id: 'user-1' });
    } catch (error) {
      if (!isSwitchboardError(error, 'UPSTREAM_ERROR') || error.details.rpcCode !== METHOD_NOT_FOUND)
        throw error;
    }
  });

/**
 * `json-schema-2020-12-preservation`: the inputSchema our client holds for
 * `json_schema_2020_12_tool` is echoed back, so the server sees what survived our handling.
 */
const schemaPreservation: Handler = (ctx) =>
  withConnection(ctx, {}, async (conn) => {
    const { items } = await conn.listTools();
    const tool = items.find((t) => t.name === 'json_schema_2020_12_tool');
    if (!tool) fail('json_schema_2020_12_tool is not listed');
    if (!items.some((t) => t.name === 'json_schema_echo')) fail('json_schema_echo is not listed');
    await callOk(conn, 'json_schema_echo', { schema: tool.inputSchema });
  });

/**
 * `sep-2640-client-no-prefetch` (Skills extension): list the skills and read none of their
 * files: listing is no reason to fetch anything (SEP-2640 "Lazy Retrieval").
 */
const skillsNoPrefetch: Handler = (ctx) =>
  withConnection(ctx, { eitherEra: true }, async (conn) => {
    if (!conn.skills.supported) fail('the server does not declare io.modelcontextprotocol/skills');
    const { skills } = await conn.skills.list();
    if (skills.length === 0) fail('skills/list listed no skill');
  });

/**
 * `sep-2640-client-verify-{digest,size,frontmatter}`: list, then load the first skill (read
 * its SKILL.md through the Connection, which verifies it against the entry) and, only once it
 * verified, read a supporting file as a host acting on the skill would. The server tampered
 * with the SKILL.md, so the load must be refused with that check, and nothing more read.
 */
const skillsVerify =
  (reason: 'digest' | 'size' | 'frontmatter'): Handler =>
  (ctx) =>
    withConnection(ctx, { eitherEra: true }, async (conn) => {
      const { skills } = await conn.skills.list();
      const skill = skills[0];
      if (!skill) fail('skills/list listed no skill');
      try {
        await conn.skills.read(skill);
      } catch (error) {
        if (isSwitchboardError(error, 'SKILL_VERIFICATION_FAILED') && error.details.reason === reason) return;
        throw error;
      }
      const files = skill.resources === 'dynamic' ? [] : skill.resources.filter((r) => r.uri !== skill.uri);
      for (const file of files) await conn.skills.read(skill, file.uri);
      fail(`the SKILL.md of ${skill.uri} passed verification; expected a ${reason} failure`);
    });

/** One handler per scenario of suite 0.1.16 and 0.2.0-alpha.12. */
const HANDLERS: Readonly<Record<string, Handler>> = {
  initialize,
  tools_call: toolsCall,
  'elicitation-sep1034-client-defaults': elicitationDefaults,
  'sse-retry': sseRetry,
  'request-metadata': requestMetadata,
  'sep-2322-client-request-state': requestState,
  'http-standard-headers': standardHeaders,
  'http-custom-headers': customHeaders,
  'http-invalid-tool-headers': invalidToolHeaders,
  'json-schema-ref-no-deref': refNoDeref,
  'json-schema-2020-12-preservation': schemaPreservation,
  ...AUTH_HANDLERS,
  'sep-2640-client-no-prefetch': skillsNoPrefetch,
  'sep-2640-client-verify-digest': skillsVerify('digest'),
  'sep-2640-client-verify-size': skillsVerify('size'),
  'sep-2640-client-verify-frontmatter': skillsVerify('frontmatter'),
};

// ---- main ----------------------------------------------------------------------------------

function writeMarker(scenario: string): void {
  const dir = process.env.SWITCHBOARD_CONFORMANCE_MARKERS;
  if (!dir) return;
  const file = join(dir, `${scenario}.done`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ scenario, pid: process.pid, at: new Date().toISOString() })}\n`);
}

function parseContext(raw: string | undefined): Record<string, unknown> | undefined {
  if (raw === undefined || raw === '') return undefined;
  const parsed: unknown = JSON.parse(raw);
  if (!isRecord(parsed)) throw new ScenarioFailure('MCP_CONFORMANCE_CONTEXT is not a JSON object');
  return parsed;
}

async function main(): Promise<number> {
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
  const url = process.argv.at(-1);
  if (!scenario) {
    process.stderr.write(`${PROGRAM}: MCP_CONFORMANCE_SCENARIO is not set\n`);
    return 1;
  }
  if (process.argv.length < 3 || !url || !/^https?:\/\//.test(url)) {
    process.stderr.write(`${PROGRAM}: usage: ${PROGRAM} <server-url> (got ${url ?? 'nothing'})\n`);
    return 1;
  }
  const handler = Object.hasOwn(HANDLERS, scenario) ? HANDLERS[scenario] : undefined;
  if (!handler) {
    process.stderr.write(`${PROGRAM}: unknown scenario "${scenario}"\n`);
    return 1;
  }
  const started = Date.now();
  try {
    const ctx: ScenarioContext = {
      scenario,
      url,
      wire: process.env.MCP_CONFORMANCE_PROTOCOL_VERSION || undefined,
      context: parseContext(process.env.MCP_CONFORMANCE_CONTEXT),
    };
    await handler(ctx);
  } catch (error) {
    if (error instanceof NotImplementedError) {
      process.stderr.write(`${PROGRAM}: ${scenario}: not implemented yet\n`);
    } else {
      const what = error instanceof ScenarioFailure ? error.message : describeError(error);
      process.stderr.write(`${PROGRAM}: ${scenario} FAILED: ${what}\n`);
      if (!(error instanceof ScenarioFailure) && error instanceof Error && error.stack) {
        process.stderr.write(`${error.stack}\n`);
      }
    }
    return 1;
  }
  writeMarker(scenario);
  process.stderr.write(`${PROGRAM}: ${scenario} done in ${Date.now() - started} ms\n`);
  return 0;
}

process.exitCode = await main();
// The Connection is closed: nothing should keep the process alive. If something does (a
// dangling stream or timer), say what and exit anyway rather than hit the suite's timeout.
setTimeout(() => {
  const open = process.getActiveResourcesInfo().filter((r) => r !== 'Timeout');
  process.stderr.write(`${PROGRAM}: still running 3 s after finishing; open handles: ${open.join(', ')}\n`);
  process.exit(process.exitCode === 0 ? 1 : process.exitCode);
}, 3000).unref();
