import { DPOP_SUPPORTED_ALGS, type DpopAlg, DpopSession } from '@modelcontextprotocol/client';

/**
 * DPoP signing keys (RFC 9449, SEP-1932), one per server and authorization server, kept for
 * the life of the process. The SDK's keys are non-extractable by default (RFC 9449 §11), so
 * they are not written to the credential store: a DPoP-bound token stored by an earlier
 * process has no key here, and is treated as absent (see `dpopKeyFor`).
 */
export class DpopKeyring {
  private readonly sessions = new Map<string, Promise<DpopSession>>();

  /** The session for `server` at `issuer`, created on first use with the first algorithm both sides support. */
  session(server: string, issuer: string, serverAlgs: readonly string[] | undefined): Promise<DpopSession> {
    const key = `${server}\u0000${issuer}`;
    let found = this.sessions.get(key);
    if (!found) {
      found = DpopSession.create({ alg: pickAlg(serverAlgs) });
      this.sessions.set(key, found);
    }
    return found;
  }

  /** The session for `server` at `issuer` if one was created in this process. */
  existing(server: string, issuer: string): Promise<DpopSession> | undefined {
    return this.sessions.get(`${server}\u0000${issuer}`);
  }
}

/** The keyring used when none is given: one per process. */
export const processDpopKeyring = new DpopKeyring();

/** ES256 when offered (small, fast), else the first algorithm both sides know. */
function pickAlg(serverAlgs: readonly string[] | undefined): DpopAlg {
  const supported = (serverAlgs ?? []).filter((a): a is DpopAlg =>
    (DPOP_SUPPORTED_ALGS as readonly string[]).includes(a),
  );
  return supported.includes('ES256') ? 'ES256' : (supported[0] ?? 'ES256');
}
