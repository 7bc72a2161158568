/**
 * The `auth/*` scenarios of the conformance suite, through our Connection and its OAuth
 * client: each scenario becomes a server entry with an `auth` block, as a person would write
 * it, with the suite's per-scenario inputs (`MCP_CONFORMANCE_CONTEXT`: client ids, secrets,
 * keys, assertions) passed as `${VAR}` references through the environment. Logins complete
 * headlessly: the suite's authorization servers approve at once, so the authorization URL is
 * followed to its redirect without a browser or a listener.
 *
 * Scenarios whose correct behaviour is a refusal expect one specific AUTH_FAILED reason; any
 * other outcome (success, another error, a crash) fails the handler and leaves no marker.
 */
import {
  type AuthFailureReason,
  followAuthorizationRedirects,
  MemoryCredentialStore,
} from '../../src/client/index.js';
import { isSwitchboardError } from '../../src/core/index.js';
import {
  fail,
  type Handler,
  PROGRAM,
  type ScenarioContext,
  toolNames,
  withConnection,
} from './scenario-kit.js';

/** Our published Client ID Metadata Document (the URL the suite expects as client_id). */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
/** Never listened on: the headless driver stops at the redirect to it. */
const REDIRECT_URI = 'http://127.0.0.1:33418/oauth/callback';

/** Scenarios where the client must refuse, and the reason it must give. */
const REFUSALS: Readonly<Record<string, AuthFailureReason>> = {
  'auth/resource-mismatch': 'resource_mismatch',
  'auth/iss-supported-missing': 'iss_mismatch',
  'auth/iss-wrong-issuer': 'iss_mismatch',
  'auth/iss-unexpected': 'iss_mismatch',
  'auth/iss-normalized': 'iss_mismatch',
  'auth/metadata-issuer-mismatch': 'issuer_mismatch',
  // The server answers 403 insufficient_scope whatever is granted: step-up must stop.
  'auth/scope-retry-limit': 'insufficient_scope',
};

/** An entry's `auth` for the scenario, and the environment its `${VAR}`s come from. */
function oauthEntry(ctx: ScenarioContext): { auth: Record<string, unknown>; env: Record<string, string> } {
  const c = ctx.context ?? {};
  const text = (key: string) => (typeof c[key] === 'string' ? (c[key] as string) : undefined);
  const env: Record<string, string> = {};
  const ref = (name: string, value: string | undefined) => {
    if (value === undefined) return undefined;
    env[name] = value;
    return `\${${name}}`;
  };
  const clientId = ref('CONF_CLIENT_ID', text('client_id'));
  const clientSecret = ref('CONF_CLIENT_SECRET', text('client_secret'));
  if (text('idp_id_token') !== undefined) {
    // Enterprise-managed authorization (SEP-990): ID token → ID-JAG at the IdP → jwt-bearer grant.
    return {
      env,
      auth: {
        type: 'oauth',
        grant: 'jwt_bearer',
        clientId,
        clientSecret,
        idp: {
          tokenEndpoint: ref('CONF_IDP_TOKEN_ENDPOINT', text('idp_token_endpoint')),
          clientId: ref('CONF_IDP_CLIENT_ID', text('idp_client_id')),
          idToken: ref('CONF_IDP_ID_TOKEN', text('idp_id_token')),
        },
      },
    };
  }
  if (text('valid_jwt') !== undefined) {
    // Workload identity federation (SEP-1933): the workload's own JWT is the assertion.
    return {
      env,
      auth: {
        type: 'oauth',
        grant: 'jwt_bearer',
        clientId,
        assertion: ref('CONF_ASSERTION', text('valid_jwt')),
      },
    };
  }
  if (text('private_key_pem') !== undefined) {
    return {
      env,
      auth: {
        type: 'oauth',
        grant: 'client_credentials',
        clientId,
        privateKey: ref('CONF_PRIVATE_KEY', text('private_key_pem')),
        signingAlgorithm: text('signing_algorithm') ?? 'ES256',
      },
    };
  }
  if (ctx.scenario.startsWith('auth/client-credentials')) {
    return { env, auth: { type: 'oauth', grant: 'client_credentials', clientId, clientSecret } };
  }
  const issuer = ref('CONF_ISSUER', text('issuer'));
  return {
    env,
    auth: {
      type: 'oauth',
      redirectUri: REDIRECT_URI,
      // Pre-registered when the suite gives a client; else CIMD where offered, else registration.
      ...(clientId !== undefined
        ? { clientId, clientSecret, issuer }
        : { clientMetadataUrl: CLIENT_METADATA_URL }),
    },
  };
}

/** Connects with OAuth, lists tools and calls `test-tool` when listed. */
async function authorizedSession(ctx: ScenarioContext): Promise<void> {
  const { auth, env } = oauthEntry(ctx);
  let logins = 0;
  await withConnection(
    ctx,
    {
      auth: JSON.parse(JSON.stringify(auth)) as Record<string, unknown>, // drops undefined fields
      env,
      credentials: new MemoryCredentialStore(),
      onAuthorizationUrl: async ({ url, redirectUri }) => {
        logins++;
        process.stderr.write(`[${PROGRAM}] login ${logins}: following ${url.origin}${url.pathname}\n`);
        return followAuthorizationRedirects(url, { redirectUri });
      },
    },
    async (conn) => {
      const names = await toolNames(conn);
      if (names.includes('test-tool')) {
        const result = await conn.callTool('test-tool', {});
        if (result.isError) fail(`test-tool returned an error: ${result.text}`);
      }
    },
  );
}

const authScenario: Handler = async (ctx) => {
  const refusal = REFUSALS[ctx.scenario];
  if (refusal === undefined) return authorizedSession(ctx);
  try {
    await authorizedSession(ctx);
  } catch (error) {
    if (isSwitchboardError(error, 'AUTH_FAILED') && error.details.reason === refusal) {
      process.stderr.write(`[${PROGRAM}] refused as expected (${refusal}): ${error.message}\n`);
      return;
    }
    throw error;
  }
  fail(`expected a refusal (${refusal}), but the session went through`);
};

/** Every auth scenario of suite 0.1.16 and 0.2.0-alpha.12. */
export const AUTH_HANDLERS: Readonly<Record<string, Handler>> = Object.fromEntries(
  [
    'auth/metadata-default',
    'auth/metadata-var1',
    'auth/metadata-var2',
    'auth/metadata-var3',
    'auth/basic-cimd',
    'auth/scope-from-www-authenticate',
    'auth/scope-from-scopes-supported',
    'auth/scope-omitted-when-undefined',
    'auth/scope-step-up',
    'auth/scope-retry-limit',
    'auth/token-endpoint-auth-basic',
    'auth/token-endpoint-auth-post',
    'auth/token-endpoint-auth-none',
    'auth/pre-registration',
    'auth/2025-03-26-oauth-metadata-backcompat',
    'auth/2025-03-26-oauth-endpoint-fallback',
    'auth/resource-mismatch',
    'auth/offline-access-scope',
    'auth/offline-access-not-supported',
    'auth/authorization-server-migration',
    'auth/iss-supported',
    'auth/iss-not-advertised',
    'auth/iss-supported-missing',
    'auth/iss-wrong-issuer',
    'auth/iss-unexpected',
    'auth/iss-normalized',
    'auth/metadata-issuer-mismatch',
    'auth/client-credentials-jwt',
    'auth/client-credentials-basic',
    'auth/cross-app-access-complete-flow',
    'auth/enterprise-managed-authorization',
    'auth/dpop',
    'auth/dpop-nonce',
    'auth/wif-jwt-bearer',
  ].map((name) => [name, authScenario]),
);
