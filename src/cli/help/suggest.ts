/**
 * "Did you mean …?" for what a person typed on the command line (a verb, an option, a server
 * or tool name): the known names nearest to it by edit distance. Pure, no I/O.
 */

/**
 * The optimal-string-alignment distance between `a` and `b`, case-insensitively: insertions,
 * deletions, substitutions and swaps of two neighbouring characters each cost 1 (a swap is the
 * commonest typo, `lsit` for `list`, so it counts as one edit, not two).
 */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  // Three rows of the dynamic-programming table: the swap looks two rows back.
  let before = new Array<number>(t.length + 1).fill(0);
  let previous = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const current = [i];
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1])
        best = Math.min(best, before[j - 2]! + 1);
      current.push(best);
    }
    before = previous;
    previous = current;
  }
  return previous[t.length]!;
}

/**
 * The candidates close enough to `input` to be what was meant, nearest first (ties keep the
 * candidates' order): within a third of the longer name's length (at least 1, at most 3
 * edits), or names that start with what was typed or that it starts with (`desc` for
 * `describe`). At most `limit` (default 3).
 */
export function closest(input: string, candidates: Iterable<string>, limit = 3): string[] {
  const typed = input.toLowerCase();
  if (typed === '') return [];
  const scored: { name: string; distance: number; order: number }[] = [];
  let order = 0;
  for (const name of new Set(candidates)) {
    const distance = editDistance(typed, name);
    const allowed = Math.min(3, Math.max(1, Math.floor(Math.max(typed.length, name.length) / 3)));
    const lower = name.toLowerCase();
    const prefix = typed.length >= 3 && (lower.startsWith(typed) || typed.startsWith(lower));
    if (distance > 0 && (distance <= allowed || prefix)) scored.push({ name, distance, order: order++ });
  }
  return scored
    .sort((x, y) => x.distance - y.distance || x.order - y.order)
    .slice(0, limit)
    .map((s) => s.name);
}

/** ` Did you mean "x"?` (or `"x" or "y"`) for `input` among `candidates`; empty when none is close. */
export function didYouMean(input: string, candidates: Iterable<string>): string {
  const near = closest(input, candidates);
  if (near.length === 0) return '';
  const quoted = near.map((n) => `"${n}"`);
  const last = quoted.pop()!;
  return ` Did you mean ${quoted.length > 0 ? `${quoted.join(', ')} or ${last}` : last}?`;
}
