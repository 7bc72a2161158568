import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import {
  GEN_AI_TOOL_NAME,
  SPAN_CONSENT,
  SWITCHBOARD_ANSWER,
  SWITCHBOARD_SERVER,
} from '../../core/telemetry/semconv.js';
import { stepSpan } from '../../core/telemetry/step-span.js';
import { tracingOn } from '../../core/telemetry/trace-context.js';
import type { CatalogTool } from '../../host/catalog/catalog.js';
import type { AskApproval } from '../../host/governance/governor.js';
import type { Host } from '../../host/host.js';
import type { Decision } from '../../policy/decide.js';

/**
 * The consent gate: when policy would ask about a call, the calling client is asked ("allow
 * <server>.<tool> with …?") before any upstream work — as an `input_required` result
 * (2026-07-28), which the SDK turns into an `elicitation/create` on a 2025 session. A client
 * that cannot show a question is refused: consent fails closed.
 */

/** The key of the gateway's own question among a round's `inputRequests` (namespaced: upstream keys pass through beside it). */
export const CONSENT_KEY = 'switchboard/consent';

export type Consent =
  | { readonly askApproval?: AskApproval; readonly consented?: true }
  | { readonly inputRequired: InputRequiredResult }
  | { readonly refused: string };

export interface ConsentInput {
  readonly host: Host;
  readonly principal: string;
  readonly mode: 'on' | 'off';
  /** An earlier round of this call (its sealed state says so) already consented. */
  readonly consentedBefore: boolean;
}

export async function consentFor(
  input: ConsentInput,
  server: Server,
  entry: CatalogTool,
  args: Record<string, unknown>,
  ctx: ServerContext,
): Promise<Consent> {
  if (!tracingOn()) return consentOf(input, server, entry, args, ctx);
  // A span under the call: what the gate did (asked, or the answer it had). On 2026-07-28 the
  // wait for the person lies between two requests, so it shows as the time between the
  // `asked` round's SERVER span and the next one.
  return stepSpan(
    SPAN_CONSENT,
    {
      attributes: () => ({ [SWITCHBOARD_SERVER]: entry.server, [GEN_AI_TOOL_NAME]: entry.tool.name }),
      ended: (consent) => ({ [SWITCHBOARD_ANSWER]: consentAnswer(consent) }),
    },
    () => consentOf(input, server, entry, args, ctx),
  );
}

function consentAnswer(consent: Consent): string {
  if ('refused' in consent) return 'refused';
  if ('inputRequired' in consent) return 'asked';
  if (consent.consented) return 'accept';
  return consent.askApproval ? 'decline' : 'not_needed';
}

async function consentOf(
  input: ConsentInput,
  server: Server,
  entry: CatalogTool,
  args: Record<string, unknown>,
  ctx: ServerContext,
): Promise<Consent> {
  const decision = await askingDecision(input, entry);
  if (!decision) return {};
  if (input.consentedBefore) return { askApproval: approve, consented: true };
  const answer = inputResponse(ctx.mcpReq.inputResponses, CONSENT_KEY);
  if (answer.kind === 'missing') {
    if (!clientCanElicit(server, ctx)) {
      return {
        refused: `${entry.server}.${entry.tool.name} needs your consent (${decision.reason}), but this client cannot ask you (it does not support elicitation); the call was refused. Use a client with elicitation, or have the gateway's operator allow the tool.`,
      };
    }
    const preview = JSON.stringify(args);
    return {
      inputRequired: inputRequired({
        inputRequests: {
          [CONSENT_KEY]: inputRequired.elicit({
            message: `Allow ${entry.server}.${entry.tool.name} with ${preview.length > 300 ? `${preview.slice(0, 299)}…` : preview}? (${decision.reason})`,
            requestedSchema: { type: 'object', properties: {} },
          }),
        },
      }),
    };
  }
  if (answer.kind === 'elicit' && answer.action === 'accept')
    return { askApproval: approve, consented: true };
  return { askApproval: async () => ({ approved: false, reason: 'the client declined' }) };
}

/**
 * Whether the gate would put a question to the client (or refuse one that cannot be asked)
 * on a call's first round: it is on and policy asks about `entry`. Asks no one and changes
 * nothing, so a caller can decide on it before any upstream work (fast-tool-call.ts does).
 */
export async function consentWouldAsk(
  input: Pick<ConsentInput, 'host' | 'principal' | 'mode'>,
  entry: CatalogTool,
): Promise<boolean> {
  return (await askingDecision(input, entry)) !== undefined;
}

/** Policy's decision when the gate is on and it is `ask`; the governor's decision reads, never writes. */
async function askingDecision(
  input: Pick<ConsentInput, 'host' | 'principal' | 'mode'>,
  entry: CatalogTool,
): Promise<Decision | undefined> {
  if (input.mode === 'off') return undefined;
  const decision = await input.host.governor.decision(entry, input.principal);
  return decision.verdict === 'ask' ? decision : undefined;
}

const approve: AskApproval = async () => ({ approved: true, always: false });

/** The calling client's capabilities: the request's own (2026-07-28) or its session's. */
export function callerCapabilities(server: Server, ctx: ServerContext): ClientCapabilities | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return (envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? server.getClientCapabilities()) as
    | ClientCapabilities
    | undefined;
}

function clientCanElicit(server: Server, ctx: ServerContext): boolean {
  return callerCapabilities(server, ctx)?.elicitation !== undefined;
}
