/**
 * The proof a request was forwarded by another replica of this gateway: an HMAC (SHA-256)
 * under a key every replica derives from `SWITCHBOARD_SECRET_KEY`, over the sending replica's
 * id, the time and what the request is for (its method, path and session: `forwardingSubject`).
 * The receiver still authenticates the caller's own credential (forwarding passes it on
 * unchanged); the proof only says the request was already counted by the sender's rate limits
 * and must not be forwarded again.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** The header carrying the proof. */
export const FORWARDED_HEADER = 'x-switchboard-forwarded';

/** How long a proof is accepted: forwarding is immediate, clocks of replicas drift a little. */
const MAX_AGE_MS = 30_000;

/** The forwarding key derived from Switchboard's secret key (HKDF, RFC 5869). */
export function forwardingKey(secret: Uint8Array): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', secret, 'switchboard', 'replica forwarding v1', 32));
}

/**
 * What a proof covers of a request: its method, path and session (`Mcp-Session-Id`, which a
 * relay of a 2024-11-05 message sets from its URL), so a proof taken from one request does not
 * pass another path or session.
 */
export function forwardingSubject(method: string, pathname: string, session: string | null): string {
  return `${method} ${pathname} ${session ?? ''}`;
}

/** Signs and checks forwarding proofs under one key. */
export class ForwardingProof {
  constructor(
    private readonly key: Uint8Array,
    private readonly now: () => number = Date.now,
  ) {}

  /** The header value for a request about `subject` (`forwardingSubject`) sent by replica `replica`. */
  sign(replica: string, subject: string): string {
    const at = String(this.now());
    return `${replica}.${at}.${this.mac(replica, at, subject)}`;
  }

  /** The sending replica's id when `value` is a fresh proof for `subject`, else undefined. */
  verify(value: string | null, subject: string): string | undefined {
    if (value === null) return undefined;
    const parts = value.split('.');
    if (parts.length !== 3) return undefined;
    const [replica, at, mac] = parts as [string, string, string];
    const age = this.now() - Number(at);
    if (!Number.isFinite(age) || Math.abs(age) > MAX_AGE_MS) return undefined;
    const expected = Buffer.from(this.mac(replica, at, subject));
    const given = Buffer.from(mac);
    return given.length === expected.length && timingSafeEqual(given, expected) ? replica : undefined;
  }

  private mac(replica: string, at: string, subject: string): string {
    return createHmac('sha256', this.key).update(`${replica}\n${at}\n${subject}`).digest('base64url');
  }
}
