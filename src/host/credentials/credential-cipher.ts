/**
 * Encryption at rest for stored credentials: AES-256-GCM (NIST SP 800-38D) with a fresh random
 * 96-bit IV per write. The row's server and issuer are bound as additional authenticated data,
 * so a ciphertext copied into another row fails to decrypt instead of handing one server's
 * tokens to another. The sealed text names the format and the key that wrote it:
 * `sbc1:<key id>:<iv>:<ciphertext and tag>` (base64url), so a wrong key is reported as such.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { SwitchboardError } from '../../core/errors.js';

/** The key material and where it came from (for messages: an env var name or a file). */
export interface SecretKey {
  readonly bytes: Uint8Array;
  /** E.g. `SWITCHBOARD_SECRET_KEY`, or `the key file /home/me/.switchboard/secret.key`. */
  readonly source: string;
}

const FORMAT = 'sbc1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The short public name of a key: a hash of it, never the key itself. */
export function keyIdOf(key: Uint8Array): string {
  return createHash('sha256').update('switchboard credential key\0').update(key).digest('hex').slice(0, 8);
}

/** Seals and opens credential text with one 256-bit key; the key never leaves the instance. */
export class CredentialCipher {
  /** The id written with every sealed value. */
  readonly keyId: string;
  /** Where the key came from, for messages. */
  readonly keySource: string;
  readonly #key: Buffer;

  constructor(key: SecretKey) {
    if (key.bytes.length !== 32)
      throw new SwitchboardError(
        'CONFIG_INVALID',
        `The secret key from ${key.source} is ${key.bytes.length} bytes long; AES-256 needs exactly 32.`,
      );
    this.#key = Buffer.from(key.bytes);
    this.keyId = keyIdOf(this.#key);
    this.keySource = key.source;
  }

  /** Encrypts `plaintext` for the row identified by `context` (e.g. `[server, issuer]`). */
  seal(plaintext: string, context: readonly string[]): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(this.aad(this.keyId, context));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${FORMAT}:${this.keyId}:${iv.toString('base64url')}:${data.toString('base64url')}`;
  }

  /**
   * Decrypts what `seal` produced for the same `context`. Anything else — another format, a
   * value sealed with another key, altered or moved — throws `STORAGE_FAILED`; `where` names
   * the value in the message (e.g. `the stored credentials of "gh" at https://…`).
   */
  open(sealed: string, context: readonly string[], where: string): string {
    const parts = sealed.split(':');
    const [format, keyId, ivText, dataText] = parts;
    if (parts.length !== 4 || format !== FORMAT || !keyId || !ivText || !dataText)
      throw failure(
        `${where} are not in an encrypted format this Switchboard reads (they start with ` +
          `"${sealed.slice(0, 5)}…"; expected "${FORMAT}:"). A newer Switchboard may have written them: ` +
          'upgrade, or delete them and log in again.',
      );
    if (keyId !== this.keyId)
      throw failure(
        `${where} were encrypted with key ${keyId}, but the key in use, from ${this.keySource}, is ` +
          `${this.keyId}. Set SWITCHBOARD_SECRET_KEY to the key that wrote them (id ${keyId}), or ` +
          'delete them and log in again.',
        { expectedKeyId: keyId, keyId: this.keyId },
      );
    const iv = Buffer.from(ivText, 'base64url');
    const data = Buffer.from(dataText, 'base64url');
    if (iv.length !== IV_BYTES || data.length < TAG_BYTES)
      throw failure(`${where} are damaged (cut short). Delete them and log in again.`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, iv);
      decipher.setAAD(this.aad(keyId, context));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      return Buffer.concat([
        decipher.update(data.subarray(0, data.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch (error) {
      throw failure(
        `${where} failed their integrity check: they were altered, or copied from another server's ` +
          "or issuer's row. Delete them and log in again.",
        {},
        error,
      );
    }
  }

  /** The authenticated data: the format, the key id and the row, unambiguously joined. */
  private aad(keyId: string, context: readonly string[]): Buffer {
    return Buffer.from(JSON.stringify([FORMAT, keyId, ...context]), 'utf8');
  }
}

function failure(message: string, details: Record<string, unknown> = {}, cause?: unknown): SwitchboardError {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return new SwitchboardError('STORAGE_FAILED', text, { details, ...(cause !== undefined && { cause }) });
}
