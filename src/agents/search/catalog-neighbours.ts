import type { WordVectors } from './word-vectors.js';

/** A catalog term near a query term in meaning, with their cosine. */
export interface NearTerm {
  readonly term: string;
  readonly similarity: number;
}

/** The terms of one catalog nearest in meaning to a given term. */
export interface CatalogNeighbours {
  /** Up to `max` catalog terms (not `term` itself) with cosine ≥ `floor`, best first. */
  nearest(term: string, max: number, floor: number): NearTerm[];
}

/**
 * Nearest neighbours among a catalog's own terms: where the shipped neighbour table gives a
 * word's neighbours in all of English (mostly words no tool uses), this compares it with
 * the few thousand terms the catalog does use, so "space" can reach "size" and "forget"
 * "delete". One dot product per catalog term with a vector: microseconds per query word.
 */
export function buildCatalogNeighbours(terms: Iterable<string>, vectors: WordVectors): CatalogNeighbours {
  const dims = vectors.dimensions;
  const head = Math.min(HEAD, dims);
  const known: string[] = [];
  const rows: Float32Array[] = [];
  for (const term of terms) {
    const v = vectors.vectorOf(term);
    if (v !== undefined) {
      known.push(term);
      rows.push(v);
    }
  }
  const matrix = new Float32Array(known.length * dims);
  /** Per row, the length of its part past the first `head` components. */
  const tailNorm = new Float32Array(known.length);
  rows.forEach((v, r) => {
    matrix.set(v, r * dims);
    tailNorm[r] = Math.hypot(...v.subarray(head));
  });
  return {
    nearest(term, max, floor) {
      const v = vectors.vectorOf(term);
      if (v === undefined || max <= 0) return [];
      const queryTail = Math.hypot(...v.subarray(head));
      const found: NearTerm[] = [];
      for (let r = 0; r < known.length; r++) {
        const at = r * dims;
        let dot = 0;
        for (let i = 0; i < head; i++) dot += v[i]! * matrix[at + i]!;
        // The vectors' principal axes come first, so the head says most of the cosine, and
        // the tail can add at most the product of the tails' lengths (Cauchy–Schwarz): a
        // row that cannot reach the floor, or the worst kept, is skipped exactly.
        const bound = dot + queryTail * tailNorm[r]!;
        const worst = found.length === max ? found[max - 1]!.similarity : floor;
        if (bound < floor || bound <= worst || known[r] === term) continue;
        for (let i = head; i < dims; i++) dot += v[i]! * matrix[at + i]!;
        if (dot < floor || (found.length === max && dot <= worst)) continue;
        let k = found.length;
        while (k > 0 && found[k - 1]!.similarity < dot) k--;
        found.splice(k, 0, { term: known[r]!, similarity: dot });
        if (found.length > max) found.pop();
      }
      return found;
    },
  };
}

/** Components compared first, before the bound decides whether the rest is worth it. */
const HEAD = 12;
