import type { Postings } from './postings.js';
import { synonymsOf } from './synonyms.js';
import { forEachWord, stem, tokenize } from './tokenize.js';

/**
 * What a query asks for, as concepts: each is a set of catalog terms with how much a match
 * counts. A query word is matched as written (1), through a synonym, or by prefix either way
 * ("direc" finds "directory", "relationship" finds "relation"). A tool earns, per concept,
 * the best of its matches, so one word in many forms is not counted many times.
 */

/** Catalog term → weight of a match on it. */
export type Concept = ReadonlyMap<string, number>;

/** How much a synonym or a prefix match counts next to the word itself. */
const SYNONYM_WEIGHT = 0.7;
const PREFIX_WEIGHT = 0.5;
/** Shorter query words are not prefix-matched: "re" would match half the catalog. */
const MIN_PREFIX_LENGTH = 3;
const MAX_PREFIX_EXPANSIONS = 30;
/** A catalog word that begins a longer query word must keep most of it: 4+ letters, 60 %. */
const MIN_STEM_OF_QUERY = 4;
const STEM_OF_QUERY_SHARE = 0.6;
/** A query past this many distinct words is cut: the first words usually say the most. */
export const MAX_QUERY_TERMS = 32;

function expand(term: string, postings: Postings, into: Map<string, number>): void {
  const offer = (t: string, weight: number) => {
    if (postings.get(t) !== undefined && (into.get(t) ?? 0) < weight) into.set(t, weight);
  };
  offer(term, 1);
  for (const synonym of synonymsOf(term)) offer(synonym, SYNONYM_WEIGHT);
  if (term.length < MIN_PREFIX_LENGTH) return;
  for (const longer of postings.withPrefix(term, MAX_PREFIX_EXPANSIONS)) offer(longer, PREFIX_WEIGHT);
  const shortest = Math.max(MIN_STEM_OF_QUERY, Math.ceil(term.length * STEM_OF_QUERY_SHARE));
  for (let k = term.length - 1; k >= shortest; k--) offer(term.slice(0, k), PREFIX_WEIGHT);
}

/**
 * The concepts of `query` against a catalog's `postings`. Query words that are synonyms of
 * each other ("make a new …") form one concept; two adjacent words the catalog (or the
 * synonym table) writes as one ("look up", "file system") add that word as a concept of its
 * own. Concepts that match nothing in the catalog are left out.
 */
export function queryConcepts(query: string, postings: Postings): Concept[] {
  const terms = [...new Set(tokenize(query))].slice(0, MAX_QUERY_TERMS);
  const groups: { terms: string[]; expansion: Map<string, number> }[] = [];
  for (const term of terms) {
    let group = groups.find((g) => g.terms.some((t) => synonymsOf(t).includes(term)));
    if (group) group.terms.push(term);
    else {
      group = { terms: [term], expansion: new Map() };
      groups.push(group);
    }
    expand(term, postings, group.expansion);
  }
  const words: string[] = [];
  forEachWord(query.toLowerCase(), (word) => words.push(word));
  for (let i = 0; i + 1 < words.length && groups.length < MAX_QUERY_TERMS; i++) {
    const compound = stem(words[i]! + words[i + 1]!);
    if (terms.includes(compound)) continue;
    if (postings.get(compound) === undefined && synonymsOf(compound).length === 0) continue;
    const expansion = new Map<string, number>();
    expand(compound, postings, expansion);
    groups.push({ terms: [compound], expansion });
  }
  return groups.map((g) => g.expansion).filter((e) => e.size > 0);
}
