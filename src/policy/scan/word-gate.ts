/**
 * A cheap gate before costly patterns: which of a fixed set of words (lower-case substrings)
 * a text holds, found in one pass of one regular expression. Testing each word with
 * `includes` scans the text once per word; with a few hundred words and thousands of
 * definitions per catalog that was most of a scan's time.
 */
export class WordGate {
  private readonly union: RegExp;

  constructor(words: Iterable<string>) {
    const distinct = [...new Set(words)].filter(Boolean).sort((a, b) => b.length - a.length);
    this.union = new RegExp(distinct.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  }

  /** The words of the gate that `lower` (lower-cased text) holds, overlapping ones included. */
  present(lower: string): ReadonlySet<string> {
    const found = new Set<string>();
    const union = this.union;
    union.lastIndex = 0;
    for (let m = union.exec(lower), n = 0; m && n < 10_000; m = union.exec(lower), n++) {
      found.add(m[0]);
      // A word may start inside the one just found ("cannot" holds "not").
      union.lastIndex = m.index + 1;
    }
    return found;
  }
}

/** Whether `present` holds a word of every list. */
export function holdsAll(present: ReadonlySet<string>, lists: readonly (readonly string[])[]): boolean {
  return lists.every((words) => words.some((word) => present.has(word)));
}
