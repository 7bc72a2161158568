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
  rows.forEach((v, r) => {
    matrix.set(v, r * dims);
  });
  return {
    nearest(term, max, floor) {
      const v = vectors.vectorOf(term);
      if (v === undefined || max <= 0) return [];
      const found: NearTerm[] = [];
      for (let r = 0; r < known.length; r++) {
        let dot = 0;
        const at = r * dims;
        for (let i = 0; i < dims; i++) dot += v[i]! * matrix[at + i]!;
        if (dot < floor || known[r] === term) continue;
        if (found.length === max && dot <= found[max - 1]!.similarity) continue;
        let k = found.length;
        while (k > 0 && found[k - 1]!.similarity < dot) k--;
        found.splice(k, 0, { term: known[r]!, similarity: dot });
        if (found.length > max) found.pop();
      }
      return found;
    },
  };
}
