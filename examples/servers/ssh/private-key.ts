/**
 * Private keys for `auth: "key"`: whether a key file is encrypted is read from its own
 * structure (the OpenSSH `openssh-key-v1` cipher name, or the PEM encryption headers), so a
 * passphrase is asked for only when the key really needs one.
 */
import { readFile } from 'node:fs/promises';
import ssh2 from 'ssh2';

const OPENSSH = /-----BEGIN OPENSSH PRIVATE KEY-----([\s\S]*?)-----END OPENSSH PRIVATE KEY-----/;
const MAGIC = Buffer.from('openssh-key-v1\0', 'latin1');

/** Whether a private key text needs a passphrase. */
export function keyIsEncrypted(text: string): boolean {
  const openssh = OPENSSH.exec(text);
  if (openssh) {
    // PROTOCOL.key: "openssh-key-v1\0", then string ciphername ("none" when unencrypted).
    const blob = Buffer.from(openssh[1]!.replace(/\s+/g, ''), 'base64');
    if (!blob.subarray(0, MAGIC.length).equals(MAGIC)) return false;
    const length = blob.readUInt32BE(MAGIC.length);
    return blob.toString('latin1', MAGIC.length + 4, MAGIC.length + 4 + length) !== 'none';
  }
  // RFC 1421 headers of traditional PEM keys, and PKCS#8's encrypted form.
  return /^Proc-Type:\s*4,ENCRYPTED/m.test(text) || text.includes('-----BEGIN ENCRYPTED PRIVATE KEY-----');
}

/** Whether an unencrypted key text is a private key ssh2 can use (checked before dialling). */
export function keyParses(text: string): boolean {
  return !(ssh2.utils.parseKey(text) instanceof Error);
}

/** Whether `passphrase` opens the key (checked here, before anything is sent to a server). */
export function passphraseOpens(text: string, passphrase: string): boolean {
  return !(ssh2.utils.parseKey(text, passphrase) instanceof Error);
}

/** The first readable key file among `paths`, with its text; undefined when none is. */
export async function firstReadableKey(
  paths: readonly string[],
): Promise<{ path: string; text: string } | undefined> {
  for (const path of paths) {
    try {
      return { path, text: await readFile(path, 'utf8') };
    } catch {
      // Not there or not readable: the next one.
    }
  }
  return undefined;
}
