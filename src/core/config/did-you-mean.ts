/**
 * "Did you mean …?" for misspelled names: the closest known name by edit distance, when it
 * is close enough to be a likely typo (at most 2 edits, and fewer than half the letters).
 */

/** Levenshtein distance between two strings (insertions, deletions, substitutions). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The known name closest to `word`, or undefined when none is a likely typo of it. */
export function closestName(word: string, known: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    // Lengths further apart than the limit can never match: skip the quadratic work (a key of
    // a million characters costs nothing).
    if (Math.abs(name.length - word.length) > 2) continue;
    const distance = editDistance(lower, name.toLowerCase());
    if (distance < (best?.distance ?? Number.POSITIVE_INFINITY)) best = { name, distance };
  }
  if (!best) return undefined;
  const limit = Math.min(2, Math.floor(Math.max(word.length, best.name.length) / 2));
  return best.distance <= limit ? best.name : undefined;
}
