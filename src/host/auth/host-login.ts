import type { FetchLike } from '@modelcontextprotocol/client';
import type { CredentialStore } from '../../client/auth/credential-store.js';
import { createOAuthSession } from '../../client/auth/http-auth.js';
import { type LoginOptions, runLogin } from '../../client/auth/login/login.js';
import { SwitchboardError } from '../../core/errors.js';
import type { ServerConfig } from '../../core/server-config.js';

/**
 * Logging a server in and out, for the host. A person's login (authorization code) runs the
 * interactive flow: loopback listener, browser or pasted URL. A machine client (client
 * credentials, jwt-bearer) just gets its tokens. Either way the tokens land in the credential
 * store, where the server's next connection finds them.
 */

export interface HostLoginOptions extends Omit<LoginOptions, 'print'> {
  /** Where instructions go. Default: nowhere (an embedding app shows the URL itself through `onUrl`). */
  readonly print?: (line: string) => void;
  /**
   * How requests to the authorization server go: a registered server's through the network
   * guard (the host sets it), else the global fetch.
   */
  readonly fetch?: FetchLike;
}

export async function loginServer(
  config: ServerConfig,
  credentials: CredentialStore,
  env: Readonly<Record<string, string | undefined>>,
  options: HostLoginOptions = {},
): Promise<void> {
  if (config.transport.kind === 'stdio' || config.auth?.type !== 'oauth') {
    throw new SwitchboardError(
      'CONFIG_INVALID',
      `Server "${config.name}" does not use OAuth, so there is nothing to log in to. Give its entry "auth": { "type": "oauth" } if the server asks for a login.`,
      { details: { server: config.name, field: 'auth' } },
    );
  }
  const session = createOAuthSession(config, {
    env,
    credentials,
    ...(options.fetch && { fetch: options.fetch }),
  });
  if (config.auth.grant !== 'authorization_code') {
    // A machine client: no person, no browser; the grant runs now and stores the tokens.
    await session.startAuthorization();
    return;
  }
  await runLogin(
    {
      start: async (redirectUri) => {
        const started = await session.startAuthorization({ redirectUri });
        if (started.kind !== 'redirect') {
          throw new SwitchboardError(
            'AUTH_FAILED',
            `Server "${config.name}" was authorized without a browser; nothing is left to do.`,
          );
        }
        return started.url;
      },
      complete: (redirectUrl) => session.completeAuthorization(redirectUrl),
    },
    { ...options, print: options.print ?? (() => undefined) },
  );
}
