import { forEachWord, termsOfWord } from './tokenize.js';
import type { ToolFields } from './tool-fields.js';

/**
 * The inverted index behind tool search: for each term, the tools that contain it and a
 * BM25F pseudo frequency per tool (Robertson & Zaragoza, "The Probabilistic Relevance
 * Framework: BM25 and Beyond", 2009, §3.2): each field's count is weighted by the field and
 * normalised by the field's length against its average, then summed, so one saturation
 * applies to the whole tool.
 */

/** The searched fields, their weights, and their length normalisation (BM25 `b`). */
const FIELDS = ['name', 'title', 'params', 'description', 'paramText'] as const;
const WEIGHT = [3, 2, 1, 1, 0.4] as const;
// Descriptions range from five words to five paragraphs across servers; full normalisation
// (b = 0.75) would bury well-documented tools, so long fields get a moderate one.
const B = [0.3, 0.3, 0.5, 0.5, 0.5] as const;

/** The tools that contain one term. */
export interface Posting {
  /** Tool positions, ascending. */
  readonly docs: readonly number[];
  /** BM25F pseudo frequency, per tool in `docs`. */
  readonly tf: readonly number[];
  /** Inverse document frequency (the BM25 form, never negative). */
  readonly idf: number;
}

/** Built postings of a catalog, addressed by term. */
export interface Postings {
  get(term: string): Posting | undefined;
  /** Terms of the catalog that begin with `prefix` and are longer, in order, at most `max`. */
  withPrefix(prefix: string, max: number): string[];
  /** Every term of the catalog, in order. */
  terms(): readonly string[];
}

interface MutablePosting {
  readonly id: number;
  readonly docs: number[];
  readonly tf: number[];
  idf: number;
}

/** Builds the postings of the tools whose fields are `tools`, tool `i` at position `i`. */
export function buildPostings(tools: readonly ToolFields[]): Postings {
  const postings = new Map<string, MutablePosting>();
  const byId: MutablePosting[] = [];
  const intern = (term: string): number => {
    let posting = postings.get(term);
    if (!posting) {
      posting = { id: byId.length, docs: [], tf: [], idf: 0 };
      postings.set(term, posting);
      byId.push(posting);
    }
    return posting.id;
  };

  // Pass 1: the terms of every field, as ids, end to end in one buffer (a large catalog has
  // hundreds of thousands; one array per field would mostly feed the garbage collector).
  // Catalogs repeat their words, so each distinct word is turned into ids once.
  let terms = new Int32Array(1 << 16);
  let used = 0;
  const idsOfWord = new Map<string, readonly number[]>();
  const push = (word: string) => {
    let ids = idsOfWord.get(word);
    if (ids === undefined) {
      ids = termsOfWord(word).map(intern);
      idsOfWord.set(word, ids);
    }
    for (const id of ids) {
      if (used === terms.length) {
        const grown = new Int32Array(terms.length * 2);
        grown.set(terms);
        terms = grown;
      }
      terms[used++] = id;
    }
  };
  const starts = new Int32Array(tools.length * FIELDS.length + 1);
  const totalLength = FIELDS.map(() => 0);
  tools.forEach((fields, doc) => {
    for (let f = 0; f < FIELDS.length; f++) {
      const start = used;
      starts[doc * FIELDS.length + f] = start;
      forEachWord(fields[FIELDS[f]!], push);
      totalLength[f]! += used - start;
    }
  });
  starts[tools.length * FIELDS.length] = used;
  const avgLength = totalLength.map((total) => Math.max(1, total / Math.max(1, tools.length)));

  // Pass 2: each tool's pseudo frequency per term.
  const acc = new Float64Array(byId.length);
  const seen: number[] = [];
  for (let doc = 0; doc < tools.length; doc++) {
    for (let f = 0; f < FIELDS.length; f++) {
      const start = starts[doc * FIELDS.length + f]!;
      const end = starts[doc * FIELDS.length + f + 1]!;
      const increment = WEIGHT[f]! / (1 - B[f]! + (B[f]! * (end - start)) / avgLength[f]!);
      for (let i = start; i < end; i++) {
        const id = terms[i]!;
        if (acc[id] === 0) seen.push(id);
        acc[id]! += increment;
      }
    }
    for (const id of seen) {
      byId[id]!.docs.push(doc);
      byId[id]!.tf.push(acc[id]!);
      acc[id] = 0;
    }
    seen.length = 0;
  }
  for (const posting of byId) {
    const df = posting.docs.length;
    posting.idf = Math.log(1 + (tools.length - df + 0.5) / (df + 0.5));
  }

  const vocabulary = [...postings.keys()].sort();
  return {
    get: (term) => postings.get(term),
    terms: () => vocabulary,
    withPrefix: (prefix, max) => {
      const out: string[] = [];
      for (let i = lowerBound(vocabulary, prefix); i < vocabulary.length && out.length < max; i++) {
        const term = vocabulary[i]!;
        if (!term.startsWith(prefix)) break;
        if (term !== prefix) out.push(term);
      }
      return out;
    },
  };
}

/** Index of the first element of sorted `items` not less than `key`. */
function lowerBound(items: readonly string[], key: string): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (items[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
