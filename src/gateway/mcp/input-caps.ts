import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

/**
 * Limits on a call's arguments, checked before anything goes upstream: their JSON size, how
 * deep they nest, and the longest string. A hostile or runaway client cannot push megabytes or
 * a 10,000-level object through the gateway to a server that may choke on it. Pure; returns
 * what is wrong in words, or undefined.
 */
export interface InputLimits {
  readonly argumentBytes: number;
  readonly depth: number;
  readonly stringLength: number;
}

/**
 * Throws the gateway's refusal (JSON-RPC invalid params) when `value` — a call's arguments, a
 * prompt's, a completion's argument, a resource URI — is over `limits`: whatever a client
 * sends that goes on to a server is held to the same caps.
 */
export function refuseOversized(value: unknown, limits: InputLimits): void {
  const tooBig = checkInputCaps(value, limits);
  if (tooBig) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Refused: ${tooBig}.`);
}

export function checkInputCaps(args: unknown, limits: InputLimits): string | undefined {
  // Depth first, iteratively: stringifying a 100,000-level value to measure it would overflow
  // the stack — ours, not the client's.
  const stack: { value: unknown; depth: number }[] = [{ value: args, depth: 0 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.length > limits.stringLength) {
        return `an argument string is ${value.length} characters long; the limit is ${limits.stringLength}`;
      }
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= limits.depth) return `the arguments nest deeper than ${limits.depth} levels`;
    if (Array.isArray(value)) {
      for (const child of value) stack.push({ value: child, depth: depth + 1 });
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      // A name is a string the server reads too: held to the same limit as a value.
      if (key.length > limits.stringLength) {
        return `an argument name is ${key.length} characters long; the limit is ${limits.stringLength}`;
      }
      stack.push({ value: child, depth: depth + 1 });
    }
  }
  const bytes = Buffer.byteLength(JSON.stringify(args ?? {}));
  if (bytes > limits.argumentBytes) {
    return `the arguments are ${bytes} bytes; the gateway accepts at most ${limits.argumentBytes}`;
  }
  return undefined;
}
