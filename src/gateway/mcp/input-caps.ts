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
    for (const child of Array.isArray(value) ? value : Object.values(value))
      stack.push({ value: child, depth: depth + 1 });
  }
  const bytes = Buffer.byteLength(JSON.stringify(args ?? {}));
  if (bytes > limits.argumentBytes) {
    return `the arguments are ${bytes} bytes; the gateway accepts at most ${limits.argumentBytes}`;
  }
  return undefined;
}
